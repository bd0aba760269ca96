package guard_test

import (
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
)

func openMemory(t *testing.T) (guard.Store, func() guard.Store) {
	m := guard.NewMemoryStore()
	return m, func() guard.Store { m.Restart(); return m }
}

func TestDecisionsMemory(t *testing.T) { guardtest.Decisions(t, openMemory) }

func TestMemoryStore(t *testing.T) { guardtest.Store(t, openMemory) }
