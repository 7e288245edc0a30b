// Package par runs independent work on every core.
package par
