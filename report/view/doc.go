// Package view builds the episode viewer: a self-contained static site
// (plain HTML, CSS and JavaScript, no network) that lists the episodes of
// one or more ledgers with filters, live counts and rates, and shows each
// episode as a timeline on the virtual clock — calls and what the agent
// observed, the injected fault, each committed effect with its origin, and
// the grader's verdict in words — in the visual language of Figure 1.
//
// # Data
//
// Raw JSONL ledgers (calls and effects nested) are graded on read with
// sandbox.Grade; Parquet episode tables are read with their calls and
// effects tables beside them (X.calls.parquet, X.effects.parquet) when
// those exist. An episode table without calls (CSV, graded JSONL, Parquet
// alone) gives the list and the grades only, and the pages say so. The
// timelines are sandbox.TraceOf's: the viewer interprets nothing itself.
//
// # Scale
//
// The list data is columnar with dictionary-coded design fields (about
// 100 bytes an episode with its id); each episode's timeline sits in a
// chunk of ChunkSize episodes that the page loads when the episode is
// opened, with a script tag, so that the site works from file://. Beyond
// Options.MaxEpisodes the site keeps every k-th episode (k a power of two)
// and every page says it is a sample.
package view
