// Independent-reader check of a partitioned export: opens the Hive-style
// dataset DIR/experiment=…/model=…/part-K.parquet with DuckDB as ONE table
// (hive_partitioning) and compares, per (experiment, model), the row count
// and the number of duplicated episodes with limbo-analyze's
// `rates --by experiment,model --outcome duplicated --weight none --format json`
// on the source ledger. It also checks that the values DuckDB derives from
// the paths equal the columns stored in the files, and that a filter on a
// partition column reads only that partition's files.
// Usage: node partitioned.mjs DIR RATES.json
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, ratesPath] = process.argv.slice(2);
const want = JSON.parse(readFileSync(ratesPath, 'utf8')).rows;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const glob = lit(dir + '/**/*.parquet');
const hive = `read_parquet(${glob}, hive_partitioning = true, hive_types_autocast = false)`;
const flat = `read_parquet(${glob}, hive_partitioning = false, filename = true)`;

const problems = [];
const expect = (what, got, exp) => {
  if (String(got) !== String(exp)) problems.push(`${what}: duckdb ${got}, limbo-analyze ${exp}`);
};

const got = await q(`SELECT experiment, model, count(*) AS n, sum(CAST(duplicated AS INTEGER)) AS events
  FROM ${hive} GROUP BY ALL ORDER BY experiment, model`);
expect('groups', got.length, want.length);
const key = (e, m) => `${e}\u0000${m}`;
const byKey = new Map(got.map((r) => [key(r.experiment, r.model), r]));
for (const w of want) {
  const g = byKey.get(key(w.group.experiment, w.group.model));
  const name = `experiment=${w.group.experiment}/model=${w.group.model}`;
  if (!g) { problems.push(`${name}: missing in the dataset`); continue; }
  expect(`${name} rows`, g.n, w.n);
  expect(`${name} duplicated`, g.events, w.events);
}

// Path values agree with the stored columns in every row.
const [{ bad }] = await q(`SELECT count(*) AS bad FROM ${flat}
  WHERE regexp_extract(filename, 'experiment=([^/]*)', 1) <> experiment
     OR regexp_extract(filename, 'model=([^/]*)', 1) <> model`);
expect('rows whose path disagrees with their columns', bad, 0);

// Partition pruning: a filter on model touches only that model's files.
const m = want[0].group.model;
const plan = (await q(`EXPLAIN ANALYZE SELECT count(*) FROM ${hive} WHERE model = ${lit(m)}`))
  .map((r) => Object.values(r).join(' ')).join('\n');
const files = await q(`SELECT DISTINCT file FROM glob(${glob})`);
const mine = files.filter((f) => f.file.includes(`/model=${m}/`)).length;
const scanned = plan.match(/Scanning Files:\s*(\d+)\/(\d+)/);
if (scanned) expect(`files scanned for model = ${m}`, scanned[1], mine);

if (problems.length > 0) {
  for (const p of problems) console.error(`${dir}: ${p}`);
  process.exit(1);
}
const total = got.reduce((s, r) => s + Number(r.n), 0);
console.log(`${dir}: DuckDB reads one dataset (${total} rows, ${got.length} partitions, ${files.length} files) that agrees with limbo-analyze`);
