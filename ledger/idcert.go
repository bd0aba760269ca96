package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"hash/maphash"
	"io"
	"runtime"
	"slices"

	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Certified episode ids. Every read checks that episode ids are unique
// (needCols), which on a Parquet file means decompressing and hashing the
// whole episode_id column: at ten million rows the largest column (770 MB
// of text), three times the work of the rest of a rates query. A Parquet
// episode table this package writes therefore records, in its
// MetaEpisodeIDs metadata, that the writer found every id valid and
// unique, bound to the exact bytes of the column as written: per row
// group, its rows, the chunk's place and size and a CRC-32C of its
// compressed bytes, all under SHA-256. A reader of one file that recomputes
// the same value from the file it reads (reading the compressed chunks, a
// thirtieth of the text, and decompressing nothing) knows the ids are
// unique without decoding them. Any other file — written by another tool,
// rewritten, a footer copied onto other data — fails the comparison and
// is checked in full; the files of a directory or glob are always checked
// in full, since a certificate says nothing about ids across files.

// MetaEpisodeIDs is the key of the episode-id certificate.
const MetaEpisodeIDs = "limbo.episode_ids"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errNoIDColumn: the file has no episode_id column to certify.
var errNoIDColumn = errors.New("no episode_id column")

// idCertificate computes the certificate of the episode_id column of the
// Parquet file whose metadata is md, reading the column's bytes from r.
func idCertificate(r io.ReaderAt, md *metadata.FileMetaData) (string, error) {
	col := md.Schema.ColumnIndexByName("episode_id")
	if col < 0 {
		return "", errNoIDColumn
	}
	h := sha256.New()
	var buf []byte
	var rec [28]byte
	for i := range md.NumRowGroups() {
		rg := md.RowGroup(i)
		cc, err := rg.ColumnChunk(col)
		if err != nil {
			return "", err
		}
		start := cc.DataPageOffset()
		if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && cc.DictionaryPageOffset() < start {
			start = cc.DictionaryPageOffset()
		}
		size := cc.TotalCompressedSize()
		if start < 0 || size < 0 || size > 1<<31 {
			return "", errors.New("episode_id chunk out of range")
		}
		buf = slices.Grow(buf[:0], int(size))[:size]
		if _, err := r.ReadAt(buf, start); err != nil {
			return "", err
		}
		binary.LittleEndian.PutUint64(rec[0:], uint64(rg.NumRows()))
		binary.LittleEndian.PutUint64(rec[8:], uint64(start))
		binary.LittleEndian.PutUint64(rec[16:], uint64(size))
		binary.LittleEndian.PutUint32(rec[24:], crc32.Checksum(buf, castagnoli))
		h.Write(rec[:])
	}
	return "v1 sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hasIDCertificate reports whether the file carries a certificate of its
// episode ids, matching or not.
func (p *pqFile) hasIDCertificate() bool {
	return p.pf.MetaData().KeyValueMetadata().FindValue(MetaEpisodeIDs) != nil
}

// idsCertified reports whether the file carries a certificate of its
// episode ids that matches the bytes it holds.
func (p *pqFile) idsCertified() bool {
	md := p.pf.MetaData()
	v := md.KeyValueMetadata().FindValue(MetaEpisodeIDs)
	if v == nil {
		return false
	}
	got, err := idCertificate(p.f, md)
	return err == nil && got == *v
}

// idTally collects what the writer of an episode table needs to certify
// its ids: whether every id passed the reader's check, and their hashes.
type idTally struct {
	seed maphash.Seed
	ids  idBuckets
	bad  bool
}

func newIDTally() *idTally { return &idTally{seed: maphash.MakeSeed()} }

func (t *idTally) add(id string) {
	if t.bad {
		return
	}
	if !checkString(colEpisodeID, id, func(Problem) {}) {
		t.bad = true
		return
	}
	h := maphash.String(t.seed, id)
	t.ids[h>>56] = append(t.ids[h>>56], h)
}

// unique reports whether every id was valid and no two were the same.
func (t *idTally) unique() bool {
	return !t.bad && uniqueIDs([]*idBuckets{&t.ids}, runtime.GOMAXPROCS(0))
}

// certifyIDs adds the certificate of the episode ids to the footer of the
// finished Parquet file a (written and flushed, md its metadata).
func certifyIDs(a *atomicFile, md *metadata.FileMetaData) error {
	cert, err := idCertificate(a.f, md)
	if err != nil {
		return err
	}
	return appendFooterKV(a.f, md, MetaEpisodeIDs, cert)
}

// footerFile is a Parquet file being written whose footer can be replaced.
type footerFile interface {
	io.ReaderAt
	io.Writer
	Truncate(size int64) error // the next Write goes on from size
	Size() (int64, error)
}

// appendFooterKV cuts the footer off the finished Parquet file f (md its
// metadata) and writes it again with one more key-value pair.
func appendFooterKV(f footerFile, md *metadata.FileMetaData, key, value string) error {
	size, err := f.Size()
	if err != nil {
		return err
	}
	var tail [8]byte
	if size < 12 {
		return errors.New("ledger: Parquet file too short for a footer")
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("ledger: Parquet footer not found")
	}
	footerStart := size - 8 - int64(binary.LittleEndian.Uint32(tail[:4]))
	kv := slices.Clone(md.KeyValueMetadata())
	if err := kv.Append(key, value); err != nil {
		return err
	}
	md.FileMetaData.KeyValueMetadata = kv
	var b bytes.Buffer
	n, err := md.WriteTo(&b, nil)
	if err != nil {
		return err
	}
	b.Write(binary.LittleEndian.AppendUint32(nil, uint32(n)))
	b.WriteString("PAR1")
	if err := f.Truncate(footerStart); err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	return err
}
