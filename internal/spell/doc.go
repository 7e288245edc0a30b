// Package spell suggests the name a user probably meant.
package spell
