package sandbox

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// Semantic identity (docs/simulation.md, Grading: logical identity and
// metrics). Each write declares, in identity, the arguments that make its
// logical action: a target, a normalised amount, a recipient and a
// subject. Where that action includes free text a model writes (a post, a
// ticket title, a comment, a subject line), two texts are also the same
// action when their words overlap enough: a re-synthesised write that
// rewords a post is the post it rewords, not a new one. The exact rule
// decides first; the similarity rule only places an effect that the exact
// rule leaves unrequested, on the required action of the same tool and
// target whose text it is most similar to.

// SimilarText is the similarity at or above which two texts of one target
// are the same action: the Jaccard index of their word sets (words are
// runs of letters and digits, case-folded). A rewording that changes two
// words of ten scores 8/12 = 0.67; the distinct texts a task requires of
// one target score below 0.5 (TestRequiredTextsDistinct).
const SimilarText = 0.6

// fuzzyText returns, for a write whose logical action includes free text,
// the action's target without the text (the exact part of identity) and
// the text; ok is false for writes whose action has no free text.
func fuzzyText(tool int, args map[string]any) (target, text string, ok bool) {
	s := func(k string) string { v, _ := args[k].(string); return v }
	switch tool {
	case tSocialPublish:
		return "social_publish|" + s("platform"), s("text"), true
	case tTicketsCreate:
		return "tickets_create", s("title"), true
	case tTicketsAddComment:
		return "tickets_add_comment|" + s("ticket_id"), s("text"), true
	case tMailSend:
		return "mail_send|" + normText(s("to")), s("subject"), true
	}
	return "", "", false
}

// appendWords appends the set of words of s to dst, sorted: maximal runs
// of letters and digits, lower-cased, each once.
func appendWords(dst []string, s string) []string {
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			dst = append(dst, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	if start >= 0 {
		dst = append(dst, strings.ToLower(s[start:]))
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}

// Similarity is the Jaccard index of the word sets of a and b (1 when
// both have none). The sets are sorted slices, merged: a text's words
// fit on the stack, where sets as maps were made on the heap.
func Similarity(a, b string) float64 {
	var bufA, bufB [32]string
	wa, wb := appendWords(bufA[:0], a), appendWords(bufB[:0], b)
	if len(wa) == 0 && len(wb) == 0 {
		return 1
	}
	both := 0
	for i, j := 0, 0; i < len(wa) && j < len(wb); {
		switch {
		case wa[i] < wb[j]:
			i++
		case wa[i] > wb[j]:
			j++
		default:
			both++
			i++
			j++
		}
	}
	return float64(both) / float64(len(wa)+len(wb)-both)
}

// ActionOf returns the index of the first step of the task whose logical
// action a write of tool with args is: the step whose identity is the
// write's, else (for a write whose action includes free text) the step of
// the same tool and target whose text is most similar to the write's, at
// or above SimilarText. It returns -1 when the write is no step's action.
// A batch write is a step's action when every one of its rows is.
func (t *Task) ActionOf(tool string, args map[string]any) int {
	ti, ok := toolIndex[tool]
	if !ok {
		return -1
	}
	var idsN [1]string // a write's one identity (a batch's rows have more)
	ids := appendIdentities(idsN[:0], ti, args)
	for i := range t.Steps {
		s := &t.Steps[i]
		if s.tool == ti && len(ids) > 0 && subset(ids, s.ids) {
			return i
		}
	}
	target, text, fuzzy := fuzzyText(ti, args)
	if !fuzzy {
		return -1
	}
	best, bestSim := -1, 0.0
	for i := range t.Steps {
		s := &t.Steps[i]
		if s.tool != ti {
			continue
		}
		st, stext, _ := fuzzyText(ti, s.Args)
		if st != target {
			continue
		}
		if sim := Similarity(text, stext); sim >= SimilarText && sim > bestSim {
			best, bestSim = i, sim
		}
	}
	return best
}

// subset reports whether every id of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// effectArgs is what makes one committed effect exactly the repeat of
// another: the canonical arguments of the call that issued it without the
// idempotency key and a quoted receipt (which a repeat may carry or not),
// narrowed to the effect's own row for a batch.
func effectArgs(ti int, args map[string]any, resource string) string {
	if args == nil {
		return ""
	}
	if ti == tDataInsertMany {
		table, _ := args["table"].(string)
		for _, r := range rowsOf(args["rows"]) {
			if rowResource(table, r["id"]) == resource {
				return canonString(map[string]any{"table": table, "row": r})
			}
		}
	}
	plain := args
	if _, quoted := args[receiptArg]; quoted {
		plain = maps.Clone(args)
		delete(plain, receiptArg)
	}
	return canonString(plain) // without the idempotency key
}

// ActionKey names step i's logical action: its tool and identities. Steps
// that are one action (a legitimate identical repeat) share it.
func (t *Task) ActionKey(i int) string {
	if i < len(t.actionKeys) {
		return t.actionKeys[i]
	}
	return actionKey(&t.Steps[i])
}

func actionKey(s *Step) string { return s.Tool + "\x00" + strings.Join(s.ids, "\x00") }
