// Package xmltext escapes text for XML documents as encoding/xml does,
// byte for byte, for the XMLBIF writer and the SVG renderer: pbl does not
// link encoding/xml, whose package init (an entity table of 250 entries)
// would cost every start of the command (issue 16).
package xmltext
