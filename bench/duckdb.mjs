// DuckDB side of bench/duckdb.sh: runs one of the yardstick queries on a
// Parquet ledger and prints its result as tab-separated lines, so that the
// script can check that both tools did the same work.
// Usage: node duckdb.mjs rates|paired|paired_min FILE.parquet
import { DuckDBInstance } from '@duckdb/node-api';

const [task, file] = process.argv.slice(2);
const src = `read_parquet('${file.replaceAll("'", "''")}')`;
const sql = {
  // rates --outcome duplicated --by contract,fault_mode --where fault_fired
  rates: `SELECT contract, fault_mode, count(*) AS n, sum(duplicated::INT) AS events
          FROM ${src} WHERE fault_fired GROUP BY ALL ORDER BY ALL`,
  // paired --outcome eos --arm condition --base guard --pair-by pair_key
  //   --where 'experiment == "E2" && fault_fired': k-th with k-th episode
  //   (by episode_id) of each pair key and condition.
  paired: `WITH t AS (
             SELECT pair_key, condition, eos,
                    row_number() OVER (PARTITION BY pair_key, condition ORDER BY episode_id) AS k
             FROM ${src} WHERE experiment = 'E2' AND fault_fired)
           SELECT o.condition, count(*) AS pairs,
                  sum((g.eos AND NOT o.eos)::INT) AS b, sum((o.eos AND NOT g.eos)::INT) AS c
           FROM t g JOIN t o ON g.pair_key = o.pair_key AND g.k = o.k
           WHERE g.condition = 'guard' AND o.condition <> 'guard'
           GROUP BY ALL ORDER BY ALL`,
  // The same counts by the least work DuckDB can do when every pair key
  // has one episode per condition (true of bench/gen's ledgers, and
  // checked by the script's count comparison): no window, one join.
  paired_min: `WITH t AS (
             SELECT pair_key, condition, eos FROM ${src} WHERE experiment = 'E2' AND fault_fired)
           SELECT o.condition, count(*) AS pairs,
                  sum((g.eos AND NOT o.eos)::INT) AS b, sum((o.eos AND NOT g.eos)::INT) AS c
           FROM t g JOIN t o ON g.pair_key = o.pair_key
           WHERE g.condition = 'guard' AND o.condition <> 'guard'
           GROUP BY ALL ORDER BY ALL`,
}[task];
if (!sql) {
  console.error(`unknown task ${task}`);
  process.exit(2);
}
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = (await con.runAndReadAll(sql)).getRowsJson();
for (const r of rows) console.log(r.join('\t'));
