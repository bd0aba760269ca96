// Package planjson reads the JSON of a plan file, {"episodes": [...]} or a
// bare array of episodes, decoding each episode strictly (unknown fields
// are errors) and locating every problem at the line of its episode, for
// the plan readers of serve and the proxy.
package planjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Fail makes the error of a problem found at byte offset off of the plan
// in the field named (episodes[2].fault_mode; "" for the plan as a
// whole).
type Fail func(off int64, field, msg string) error

// Line is the 1-based line of byte offset off in data.
func Line(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	return 1 + bytes.Count(data[:off], []byte{'\n'})
}

// Parse decodes the plan's episodes in order into T and hands each to
// each, with its index and the offset where it starts; an error of each
// stops the parse. Problems of the JSON itself go through fail.
func Parse[T any](data []byte, fail Fail, each func(i int, off int64, e T) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	tok, err := dec.Token()
	if err != nil {
		return fail(dec.InputOffset(), "", "not a JSON plan: "+err.Error())
	}
	wrapped := false
	if tok == json.Delim('{') {
		// {"episodes": [...]}: the only key.
		key, err := dec.Token()
		if err != nil {
			return fail(dec.InputOffset(), "", err.Error())
		}
		if key != "episodes" {
			return fail(dec.InputOffset(), fmt.Sprint(key), `unknown field (a plan object has only "episodes")`)
		}
		if tok, err = dec.Token(); err != nil {
			return fail(dec.InputOffset(), "episodes", err.Error())
		}
		wrapped = true
	}
	if tok != json.Delim('[') {
		return fail(dec.InputOffset(), "", `a plan is {"episodes": [...]} or a JSON array of episodes`)
	}
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		// Skip the separator and white space so the line is the episode's own.
		for start < int64(len(data)) && strings.IndexByte(", \t\r\n", data[start]) >= 0 {
			start++
		}
		var e T
		if err := dec.Decode(&e); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return fail(start, fmt.Sprintf("episodes[%d].%s", i, te.Field), fmt.Sprintf("want %s, got JSON %s", te.Type, te.Value))
			}
			return fail(start, fmt.Sprintf("episodes[%d]", i), err.Error())
		}
		if err := each(i, start, e); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // closing ]
		return fail(dec.InputOffset(), "", err.Error())
	}
	if wrapped {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
			return fail(dec.InputOffset(), "", `unexpected content after "episodes" (a plan object has only "episodes")`)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(dec.InputOffset(), "", "unexpected content after the plan")
	}
	return nil
}

// FieldError is a problem with one field of a planned episode; Episodes
// locates it as episodes[i].Field.
type FieldError struct{ Field, Msg string }

func (f *FieldError) Error() string { return f.Field + ": " + f.Msg }

// FieldErr makes a *FieldError with a formatted message.
func FieldErr(field, format string, a ...any) error {
	return &FieldError{field, fmt.Sprintf(format, a...)}
}

// Episodes is Parse with the checks every plan reader makes: check
// normalizes an episode and returns its id (an error that is a
// *FieldError names the field, any other the episode), an id an earlier
// episode has is an error, and keep gets each episode that passes, in
// order.
func Episodes[T any](data []byte, fail Fail, check func(e *T) (id string, err error), keep func(e T)) error {
	seen := map[string]int{}
	return Parse(data, fail, func(i int, start int64, e T) error {
		id, err := check(&e)
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return fail(start, fmt.Sprintf("episodes[%d].%s", i, fe.Field), fe.Msg)
			}
			return fail(start, fmt.Sprintf("episodes[%d]", i), err.Error())
		}
		if j, dup := seen[id]; dup {
			return fail(start, fmt.Sprintf("episodes[%d].episode_id", i), fmt.Sprintf("duplicate episode id %q (also episodes[%d])", id, j))
		}
		seen[id] = i
		keep(e)
		return nil
	})
}
