// Package outfile commits the toolkit's output files so that a failure or a
// crash never leaves a half-written file at an output path and never
// destroys an input.
//
// It is public because the library's writers that may be one output among
// several (ledger.CreateEpisodesWith and its siblings, report.WriteAllTo,
// the preregistration and power WriteFiles) take a *Unit: a caller groups
// their files with its own and commits them all at once.
//
// # One file
//
// Create returns a File that is written to a temporary file in the target's
// directory, named with the prefix TempPrefix. Close commits it: fsync the
// file, rename it over the target, fsync the directory, so that after a
// power loss the path holds the old content or the new, never an empty or
// partial file. Abort (or a failed Close) removes the temporary file.
//
// # A unit of files
//
// A Unit groups the outputs of one command (a Parquet table and its calls
// and effects siblings; a raw ledger, its episode table and its sidecar; a
// report directory). Its files are written to temporary files as above;
// Close stages each and starts its fsync in the background (a few at a
// time, so that the syncs overlap the writing of the unit's other files
// and share the disk's flushes), and only Unit.Commit puts them in place:
// it waits for every file's sync, then renames each over its target,
// removes the stale paths the unit replaces and fsyncs their directories —
// or, on any error, restores what was there before. Directories the unit
// created are removed again on Abort.
//
// # Owned directories
//
// CreateDir builds a directory beside its path and swaps it in whole.
// CreateOwnedDir does the same for a directory a tool owns (a report, a
// viewer site): Commit writes a manifest (ManifestName) listing every
// file the tool wrote, and an existing directory is replaced only when it
// holds nothing else at any depth — by its manifest, or for a directory
// without one by the tool's names (Owner.Legacy). Anything else is a
// ForeignError naming the files, checked before the work and again just
// before the swap.
//
// # Stale temporaries
//
// A live writer holds an exclusive flock on its temporary file. The first
// Create in a directory removes the files of our prefix that nobody holds a
// lock on: the leftovers of a process killed with SIGKILL.
//
// # Inputs and locks
//
// SameFile compares paths by identity (device and inode, symlinks
// resolved), so that a command can refuse an output that is one of its
// inputs however it is spelled. TryLock takes an exclusive lock on a file's
// identity (a flock on the file itself, released by the kernel when the
// process dies; for a ledger that a long run appends to) and says who holds
// it.
package outfile
