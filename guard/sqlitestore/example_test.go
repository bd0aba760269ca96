package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/sqlitestore"
)

// A key survives its process: opened again, a call that was in flight is
// an unknown outcome and a completed one replays.
func Example() {
	dir, _ := os.MkdirTemp("", "guard")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "guard.db")
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	a := guard.Call{Tool: "billing_create_charge", Fingerprint: "f-a", Key: "a"}
	b := guard.Call{Tool: "billing_create_charge", Fingerprint: "f-b", Key: "b"}

	store, err := sqlitestore.Open(ctx, path)
	if err != nil {
		panic(err)
	}
	g, _ := guard.New(guard.Config{Policy: guard.Keys}, store)
	g.Begin(ctx, a, now) // forwarded, never finished
	d, _ := g.Begin(ctx, b, now)
	g.Finish(ctx, d.Ticket, guard.Succeeded, []byte(`{"id":"ch_2"}`), now)
	store.Close() // or the process dies: each transition is already on disk

	store, _ = sqlitestore.Open(ctx, path)
	defer store.Close()
	g, _ = guard.New(guard.Config{Policy: guard.Keys}, store)
	da, _ := g.Begin(ctx, a, now.Add(time.Minute))
	db, _ := g.Begin(ctx, b, now.Add(time.Minute))
	fmt.Println(da.Outcome)
	fmt.Println(db.Outcome, string(db.Result))
	// Output:
	// unknown_outcome
	// replay {"id":"ch_2"}
}
