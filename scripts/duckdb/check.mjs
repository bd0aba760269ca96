// Independent-reader check: opens a Parquet ledger with DuckDB and compares
// row count, sums of the boolean columns and distinct values per string
// column with what `limbo-analyze validate --summary --format json` reports.
// Usage: node check.mjs FILE.parquet SUMMARY.json
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [file, summaryPath] = process.argv.slice(2);
const want = JSON.parse(readFileSync(summaryPath, 'utf8'));
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
const lit = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';
const src = `read_parquet(${lit(file)})`;

const problems = [];
const expect = (what, got, exp) => {
  if (String(got) !== String(exp)) problems.push(`${what}: duckdb ${got}, limbo-analyze ${exp}`);
};

const cols = await q(`DESCRIBE SELECT * FROM ${src}`);
const [{ n }] = await q(`SELECT count(*) AS n FROM ${src}`);
expect('rows', n, want.rows);

const bools = cols.filter((c) => c.column_type === 'BOOLEAN').map((c) => c.column_name);
const strs = cols.filter((c) => c.column_type === 'VARCHAR').map((c) => c.column_name);
expect('boolean columns', bools.slice().sort().join(','), Object.keys(want.bool_sums).sort().join(','));
expect('string columns', strs.slice().sort().join(','), Object.keys(want.distinct).sort().join(','));
for (const c of bools) {
  const [{ s }] = await q(`SELECT coalesce(sum(CAST(${ident(c)} AS INTEGER)), 0) AS s FROM ${src}`);
  expect(`sum(${c})`, s, want.bool_sums[c]);
}
for (const c of strs) {
  const [{ d }] = await q(`SELECT count(DISTINCT ${ident(c)}) AS d FROM ${src}`);
  expect(`distinct(${c})`, d, want.distinct[c]);
}
// Types and file properties docs/ledger.md promises.
const typeOf = Object.fromEntries(cols.map((c) => [c.column_name, c.column_type]));
for (const [c, t] of [['seed', 'BIGINT'], ['instance', 'BIGINT'], ['weight', 'DOUBLE'], ['cost_usd', 'DOUBLE']]) {
  if (c in typeOf) expect(`type(${c})`, typeOf[c], t);
}
const kv = await q(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${lit(file)})`);
const meta = Object.fromEntries(kv.map((r) => [r.k, r.v]));
if (!meta['limbo.schema_version']) problems.push('key-value metadata limbo.schema_version missing');
if (!meta['limbo.toolkit_version']) problems.push('key-value metadata limbo.toolkit_version missing');
const codecs = await q(`SELECT DISTINCT compression FROM parquet_metadata(${lit(file)})`);
expect('compression', codecs.map((r) => r.compression).join(','), 'ZSTD');

if (problems.length > 0) {
  for (const p of problems) console.error(`${file}: ${p}`);
  process.exit(1);
}
console.log(`${file}: DuckDB agrees (${n} rows, ${bools.length} boolean and ${strs.length} string columns)`);
