package main

import "github.com/limbo-toolkit/limbo/ledger"

func ledgerSchemaVersion() string { return ledger.SchemaVersion }
