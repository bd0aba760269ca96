// Package table is how the analysis engine reads episodes: the sources a
// query reads (ledger files, episodes or rows held in memory, the rows of
// a Data), which hand their rows out as batches of columns where they can
// and of rows otherwise, Filter, which runs a source through a --where
// expression, and Data, the episode table held in memory as columns with
// typed views of its columns (see docs/design.md, "Packages and layers").
//
// A source's fallbacks are its own: a Parquet file that the column scan
// stops decoding is read on from that row by the row reader, and a Data
// column that cannot be batched as the row reader reads it is handed out
// as rows; a consumer sees every row once, in order, and places its errors
// through the batch at the row's file and line.
package table
