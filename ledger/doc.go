// Package ledger defines the LIMBO episode ledger (episodes, calls and
// effects), validates it and reads and writes it as JSONL, CSV and Parquet.
//
// The schema is the contract of docs/ledger.md (summarised in docs/design.md): every other
// package reads and writes these types, and users' harnesses produce them.
//
// # Reading
//
// ReadEpisodes streams the graded episodes of a ledger in any format,
// validating every row (Validate) and the file as a whole (unique
// episode_id; calls and effects beside a Parquet table refer to known
// episodes). Raw JSONL lines — an episode with its calls and effects
// nested — are graded on the way by a Grader (package sandbox has the
// paper's). ReadRaw streams raw lines as they are; ReadGraded hands over
// both. Problems are Problem values naming file, line (or row) and field;
// implausible values are warnings, errors under Strict.
//
// Memory does not grow with the file: rows are decoded one at a time (CSV,
// JSONL) or in batches of 16k (Parquet, only the columns asked for), and
// the duplicate check keeps a 64-bit hash and a line number per episode.
//
// # Writing
//
// CreateEpisodes writes graded episodes as JSONL, CSV or Parquet (zstd,
// row groups of 64k rows, key-value metadata with the toolkit version
// given in WriteOptions and SchemaVersion); CreateCalls and CreateEffects
// write the tables beside a
// Parquet episode table. Every writer commits atomically on Close (a
// temporary file in the target directory, renamed) and leaves nothing on
// Abort. RawWriter writes raw episodes as canonical JSONL (fixed field
// order, shortest round-trip numbers), so that equal episodes give equal
// bytes.
//
// Arrow and Parquet come from github.com/apache/arrow-go/v18 and are used
// only inside this package.
package ledger
