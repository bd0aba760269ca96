// Schemagen writes the code that maps the ledger's column tables onto Go
// struct fields, so that the tables in package ledger (EpisodeColumns,
// CallColumns, EffectColumns) are the one place a column is declared.
//
// It reads ledger's source (not the compiled package, so that it runs
// while the generated files are stale or missing), pairs each column with
// the struct field whose json tag names it, checks the field's type
// against the column's Kind, and writes
//
//   - ledger/columns_gen.go: the column indices of EpisodeColumns, the
//     ref methods of Episode, Call and Effect (a column index to a pointer
//     at the field), on which every reader and writer is built, and the
//     Parquet episode writer's per-row appends, unrolled;
//   - analysis/table/slots_gen.go: where each episode column lives in
//     table.Data (its kind and slot).
//
// Run it with go generate ./ledger; its test fails when the committed
// files differ from what it would write.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("schemagen: ")
	root := flag.String("root", "", "module root (default: the nearest directory above with a go.mod)")
	flag.Parse()
	if *root == "" {
		r, err := moduleRoot()
		if err != nil {
			log.Fatal(err)
		}
		*root = r
	}
	files, err := generate(*root)
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(*root, f.path), f.src); err != nil {
			log.Fatal(err)
		}
	}
}

// moduleRoot returns the nearest directory at or above the working one
// that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}

// writeFile replaces path atomically: a temporary file beside it, renamed.
func writeFile(path string, src []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".schemagen-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// column is one entry of a ledger column table, with the struct field it
// is held in.
type column struct {
	name     string // the column name, as in the table
	kind     string // KindString, KindInt, KindFloat or KindBool
	optional bool
	sparse   bool   // Group set: a plain field, written only where the group is
	field    string // the Go field holding it
}

// table is one of ledger's column tables and the struct its rows are.
type table struct {
	name   string // the table's variable, EpisodeColumns
	typ    string // the struct, Episode
	recv   string // the receiver name of its ref method
	consts bool   // give each column an index constant (col<Field>)
	cols   []column
}

type file struct {
	path string // relative to the module root, slash-separated
	src  []byte
}

// generate reads the ledger package under root and returns the files to
// write.
func generate(root string) ([]file, error) {
	fset := token.NewFileSet()
	dir := filepath.Join(root, "ledger")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || n == genLedger {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	tables := []*table{
		{name: "EpisodeColumns", typ: "Episode", recv: "e", consts: true},
		{name: "CallColumns", typ: "Call", recv: "c"},
		{name: "EffectColumns", typ: "Effect", recv: "x"},
	}
	for _, t := range tables {
		if err := t.load(fset, files); err != nil {
			return nil, err
		}
	}
	led, err := ledgerFile(tables)
	if err != nil {
		return nil, err
	}
	ana, err := analysisFile(tables[0])
	if err != nil {
		return nil, err
	}
	return []file{{"ledger/" + genLedger, led}, {"analysis/table/slots_gen.go", ana}}, nil
}

const genLedger = "columns_gen.go"

// load finds t's table and struct in files and pairs their entries.
func (t *table) load(fset *token.FileSet, files []*ast.File) error {
	var lit *ast.CompositeLit
	var st *ast.StructType
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if id.Name == t.name && i < len(n.Values) {
						lit, _ = n.Values[i].(*ast.CompositeLit)
					}
				}
			case *ast.TypeSpec:
				if n.Name.Name == t.typ {
					st, _ = n.Type.(*ast.StructType)
				}
			}
			return true
		})
	}
	if lit == nil {
		return fmt.Errorf("ledger: no table %s = []Column{...}", t.name)
	}
	if st == nil {
		return fmt.Errorf("ledger: no struct type %s", t.typ)
	}
	fields := map[string]struct{ name, typ string }{} // json name → field
	for _, f := range st.Fields.List {
		if f.Tag == nil || len(f.Names) != 1 {
			continue
		}
		tag, err := strconv.Unquote(f.Tag.Value)
		if err != nil {
			return err
		}
		js, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
		if js == "" || js == "-" {
			continue
		}
		fields[js] = struct{ name, typ string }{f.Names[0].Name, types.ExprString(f.Type)}
	}
	for _, el := range lit.Elts {
		cl, ok := el.(*ast.CompositeLit)
		if !ok {
			return fmt.Errorf("%s: %s: an entry that is not a Column literal", fset.Position(el.Pos()), t.name)
		}
		var c column
		for _, kv := range cl.Elts {
			kv, ok := kv.(*ast.KeyValueExpr)
			if !ok {
				return fmt.Errorf("%s: %s: write the Column with field names", fset.Position(cl.Pos()), t.name)
			}
			id, _ := kv.Key.(*ast.Ident)
			if id == nil {
				continue
			}
			key := id.Name
			switch key {
			case "Name":
				b, ok := kv.Value.(*ast.BasicLit)
				if !ok || b.Kind != token.STRING {
					return fmt.Errorf("%s: %s: Name must be a string literal", fset.Position(kv.Pos()), t.name)
				}
				c.name, _ = strconv.Unquote(b.Value)
			case "Group":
				// Any value but "" makes the column sparse; the table
				// names groups by constant.
				if b, ok := kv.Value.(*ast.BasicLit); ok && b.Kind == token.STRING {
					v, _ := strconv.Unquote(b.Value)
					c.sparse = v != ""
				} else {
					c.sparse = true
				}
			case "Kind", "Optional":
				id, ok := kv.Value.(*ast.Ident)
				if !ok {
					return fmt.Errorf("%s: %s: %s must be a plain identifier", fset.Position(kv.Pos()), t.name, key)
				}
				if key == "Kind" {
					c.kind = id.Name
				} else {
					c.optional = id.Name == "true"
				}
			}
		}
		f, ok := fields[c.name]
		if !ok {
			return fmt.Errorf("%s: %s: column %q has no field in %s (a field tagged json:%q)", fset.Position(cl.Pos()), t.name, c.name, t.typ, c.name)
		}
		delete(fields, c.name)
		want := map[string]string{"KindString": "string", "KindInt": "int64", "KindFloat": "float64", "KindBool": "bool"}[c.kind]
		if c.sparse && !c.optional {
			return fmt.Errorf("%s: %s: column %q has a Group, so it must be Optional", fset.Position(cl.Pos()), t.name, c.name)
		}
		if c.sparse && t.typ != "Episode" {
			return fmt.Errorf("%s: %s: column %q: only episode columns can have a Group", fset.Position(cl.Pos()), t.name, c.name)
		}
		if c.optional && !c.sparse && c.kind == "KindFloat" {
			want = "*" + want // a null is nil; an absent string is ""
		}
		if want == "" || f.typ != want {
			return fmt.Errorf("%s: %s: column %q is %s (Optional %v, sparse %v), so %s.%s must be %s, not %s", fset.Position(cl.Pos()), t.name, c.name, c.kind, c.optional, c.sparse, t.typ, f.name, want, f.typ)
		}
		if c.optional && !c.sparse && c.kind != "KindFloat" && c.kind != "KindString" {
			return fmt.Errorf("%s: %s: column %q: only float and string columns can be optional without a Group", fset.Position(cl.Pos()), t.name, c.name)
		}
		c.field = f.name
		t.cols = append(t.cols, c)
	}
	for js, f := range fields {
		return fmt.Errorf("ledger: %s.%s (json %q) is not a column of %s", t.typ, f.name, js, t.name)
	}
	return nil
}

const header = "// Code generated by schemagen from the column tables of package ledger; DO NOT EDIT.\n// Run go generate ./ledger after changing a table.\n\n"

// ledgerFile writes ledger's part: the column indices and the ref methods.
func ledgerFile(tables []*table) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("package ledger\n\n")
	for _, t := range tables {
		if !t.consts {
			continue
		}
		fmt.Fprintf(&b, "// Indices of the columns of %s.\nconst (\n", t.name)
		for i, c := range t.cols {
			if i == 0 {
				fmt.Fprintf(&b, "col%s = iota // %s\n", c.field, c.name)
			} else {
				fmt.Fprintf(&b, "col%s // %s\n", c.field, c.name)
			}
		}
		b.WriteString(")\n\n")
	}
	for _, t := range tables {
		fmt.Fprintf(&b, "// ref returns a reference to column i of %s (an index into %s).\n", t.recv, t.name)
		fmt.Fprintf(&b, "func (%s *%s) ref(i int) fieldRef {\nswitch i {\n", t.recv, t.typ)
		for i, c := range t.cols {
			if t.consts {
				fmt.Fprintf(&b, "case col%s:\n", c.field)
			} else {
				fmt.Fprintf(&b, "case %d: // %s\n", i, c.name)
			}
			ptr := map[string]string{"KindString": "s", "KindInt": "i", "KindFloat": "f", "KindBool": "b"}[c.kind]
			if c.optional && !c.sparse && c.kind == "KindFloat" {
				ptr = "opt"
			}
			fmt.Fprintf(&b, "return fieldRef{%s: &%s.%s}\n", ptr, t.recv, c.field)
		}
		what := strings.ToLower(t.typ) + " "
		if t.consts {
			what = ""
		}
		fmt.Fprintf(&b, "}\npanic(\"ledger: %scolumn index out of range\")\n}\n\n", what)
	}
	// The Parquet episode writer's inner loop, unrolled: its builders are
	// by kind, in table order. Sparse columns, which a file may or may
	// not have, are appended by the writer's own loop.
	t := tables[0]
	b.WriteString("// appendColumns appends e's schema columns but the sparse ones to p's\n// builders, which are by kind in EpisodeColumns order.\n")
	b.WriteString("func (p *parquetEpisodeWriter) appendColumns(e *Episode) {\n")
	n := map[string]int{}
	for _, c := range t.cols {
		if c.sparse {
			continue
		}
		k := c.kind
		if c.optional && c.kind == "KindFloat" {
			k = "opt"
		}
		j := n[k]
		n[k]++
		switch k {
		case "opt":
			fmt.Fprintf(&b, "if e.%s == nil {\np.opts[%d].AppendNull()\n} else {\np.opts[%d].Append(*e.%s)\n}\n", c.field, j, j, c.field)
		default:
			bld := map[string]string{"KindString": "strs", "KindInt": "ints", "KindFloat": "flts", "KindBool": "bools"}[k]
			fmt.Fprintf(&b, "p.%s[%d].Append(e.%s)\n", bld, j, c.field)
		}
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}

// analysisFile writes the column store's part: the slot of every episode
// column but episode_id (held apart) in table.Data, by kind in table order.
func analysisFile(t *table) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("package table\n\nimport \"github.com/limbo-toolkit/limbo/ledger\"\n\n")
	kinds := []struct{ kind, prefix, num, what string }{
		{"KindString", "s", "numStr", "String"},
		{"KindInt", "i", "numInt", "Integer"},
		{"KindFloat", "f", "numFloat", "Float"},
		{"KindBool", "b", "numBool", "Boolean"},
	}
	slot := map[string]string{}
	for _, k := range kinds {
		fmt.Fprintf(&b, "// %s columns of ledger.EpisodeColumns, by slot in Data.\nconst (\n", k.what)
		n := 0
		for _, c := range t.cols {
			if c.kind != k.kind || c.name == "episode_id" {
				continue
			}
			id := k.prefix + c.field
			slot[c.name] = id
			if n == 0 {
				fmt.Fprintf(&b, "%s = iota // %s\n", id, c.name)
			} else {
				fmt.Fprintf(&b, "%s // %s\n", id, c.name)
			}
			n++
		}
		fmt.Fprintf(&b, "%s\n)\n\n", k.num)
	}
	b.WriteString("// slots maps every schema column but episode_id to its slot.\nvar slots = map[string]slot{\n")
	for _, c := range t.cols {
		if id, ok := slot[c.name]; ok {
			fmt.Fprintf(&b, "%q: {ledger.%s, %s},\n", c.name, c.kind, id)
		}
	}
	b.WriteString("}\n")
	return format.Source(b.Bytes())
}
