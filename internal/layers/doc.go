// Package layers holds no code: its test checks that the packages import
// one another as docs/design.md ("Packages and layers") says they do.
package layers
