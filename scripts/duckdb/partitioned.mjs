// Independent-reader check of a partitioned export: opens the Hive-style
// dataset DIR/experiment=…/model=…/instance=…/part-K.parquet with DuckDB
// (and polars, if installed) as ONE table, with the readers' default type
// inference, and checks that
//   - per (experiment, model) the rows and duplicated episodes equal
//     limbo-analyze's `rates --by experiment,model --outcome duplicated
//     --weight none --format json` on the source ledger;
//   - every partition column comes back with the type stored in the files
//     (no string "true", no integer for a string) and, in every row, the
//     value stored in the file (no NULL for an empty value);
//   - DIR.calls and DIR.effects hold as many rows as the unpartitioned
//     export's FLAT.calls.parquet and FLAT.effects.parquet;
//   - a filter on a partition column reads only that partition's files.
// It also writes DIR-duckdb with DuckDB's COPY … PARTITION_BY, whose files
// leave the partition columns out, for limbo-analyze to read back.
// Usage: node partitioned.mjs DIR FLAT.parquet RATES.json
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, flatFile, ratesPath] = process.argv.slice(2);
const keys = ['experiment', 'model', 'instance'];
const want = JSON.parse(readFileSync(ratesPath, 'utf8')).rows;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const glob = lit(dir + '/**/*.parquet');
const hive = `read_parquet(${glob})`; // defaults: hive partitioning detected, types inferred
const flat = `read_parquet(${glob}, hive_partitioning = false)`;

const problems = [];
const expect = (what, got, exp) => {
  if (String(got) !== String(exp)) problems.push(`${what}: got ${got}, want ${exp}`);
};

const got = await q(`SELECT experiment, model, count(*) AS n, sum(CAST(duplicated AS INTEGER)) AS events
  FROM ${hive} GROUP BY ALL ORDER BY experiment, model`);
expect('duckdb groups', got.length, want.length);
const key = (e, m) => `${e}\u0000${m}`;
const byKey = new Map(got.map((r) => [key(r.experiment, r.model), r]));
for (const w of want) {
  const g = byKey.get(key(w.group.experiment, w.group.model));
  const name = `experiment=${w.group.experiment}/model=${w.group.model}`;
  if (!g) { problems.push(`duckdb: ${name}: missing in the dataset`); continue; }
  expect(`duckdb ${name} rows`, g.n, w.n);
  expect(`duckdb ${name} duplicated`, g.events, w.events);
}

// Types and values from the paths equal those stored in the files.
const types = async (src) => Object.fromEntries((await q(`DESCRIBE SELECT ${keys.join(', ')} FROM ${src}`))
  .map((r) => [r.column_name, r.column_type]));
const th = await types(hive), tf = await types(flat);
for (const k of keys) expect(`duckdb type of ${k} from the paths`, th[k], tf[k]);
const cmpRows = await q(`SELECT count(*) AS bad FROM
  (SELECT episode_id, ${keys.join(', ')} FROM ${hive}) h JOIN
  (SELECT episode_id, ${keys.join(', ')} FROM ${flat}) f USING (episode_id)
  WHERE ${keys.map((k) => `h.${k} IS DISTINCT FROM f.${k}`).join(' OR ')}`);
expect('duckdb rows whose path values differ from their columns', cmpRows[0].bad, 0);

// Calls and effects: nothing lost.
for (const t of ['calls', 'effects']) {
  const [{ n }] = await q(`SELECT count(*) AS n FROM read_parquet(${lit(`${dir}.${t}/**/*.parquet`)})`);
  const [{ n: m }] = await q(`SELECT count(*) AS n FROM read_parquet(${lit(flatFile.replace(/\.parquet$/, `.${t}.parquet`))})`);
  expect(`duckdb ${t} rows in ${dir}.${t}`, n, m);
}

// Partition pruning: a filter on model touches only that model's files.
const m = want[0].group.model;
const plan = (await q(`EXPLAIN ANALYZE SELECT count(*) FROM ${hive} WHERE model = ${lit(m)}`))
  .map((r) => Object.values(r).join(' ')).join('\n');
const files = await q(`SELECT DISTINCT file FROM glob(${glob})`);
const mine = files.filter((f) => f.file.includes(`/model=${m}/`)).length;
const scanned = plan.match(/Scanning Files:\s*(\d+)\/(\d+)/);
if (scanned) expect(`duckdb files scanned for model = ${m}`, scanned[1], mine);

// A dataset as DuckDB writes it (partition columns only in the paths), for
// partitioned.sh to read back with limbo-analyze.
await q(`COPY (SELECT * FROM read_parquet(${lit(flatFile)})) TO ${lit(dir + '-duckdb')} (FORMAT parquet, PARTITION_BY (${keys.join(', ')}))`);

// polars, when its native package is installed.
let polars = 'not installed';
let pl;
try { pl = createRequire(import.meta.url)('nodejs-polars'); } catch { pl = null; }
if (pl) {
  const hp = await pl.scanParquet(`${dir}/`, {}).collect();
  const fp = await pl.scanParquet(`${dir}/**/*.parquet`, { hivePartitioning: false }).collect();
  expect('polars rows', hp.height, fp.height);
  for (const k of keys) expect(`polars type of ${k} from the paths`, String(hp.schema[k]), String(fp.schema[k]));
  expect('polars type of model (dictionary column: categorical)', String(fp.schema.model), 'DataType(Categorical)');
  const sortCols = (df) => df.select('episode_id', ...keys).withColumns(...keys.map((k) => pl.col(k).cast(pl.Utf8)))
    .sort('episode_id').toRecords().map((r) => JSON.stringify(r)).join('\n');
  expect('polars rows whose path values differ from their columns', sortCols(hp) === sortCols(fp), true);
  expect('polars duplicated episodes', hp.filter(pl.col('duplicated')).height, want.reduce((s, w) => s + Number(w.events), 0));
  polars = `${hp.height} rows, types as stored`;
}

if (problems.length > 0) {
  for (const p of problems) console.error(`${dir}: ${p}`);
  process.exit(1);
}
const total = got.reduce((s, r) => s + Number(r.n), 0);
console.log(`${dir}: DuckDB reads one dataset (${total} rows, ${files.length} files, partition types ${keys.map((k) => th[k]).join('/')}) that agrees with limbo-analyze; polars: ${polars}`);
