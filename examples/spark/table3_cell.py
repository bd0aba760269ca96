"""Read a limbo-analyze export with PySpark and compute a Table 3 cell in Spark SQL.

    limbo-analyze simulate --out run.jsonl
    limbo-analyze export --in run.jsonl --out run.parquet
    limbo-analyze export --in run.jsonl --out run-ds --partition-by experiment,instance
    python examples/spark/table3_cell.py run.parquet run-ds

A single export is one Parquet file; a --partition-by export is a Hive-style
dataset (run-ds/experiment=E1/instance=0/part-0.parquet) whose files keep the
partition columns too. Read it with recursiveFileLookup (read_dataset): the
columns then come from the files with the ledger's types (experiment a
string, instance a bigint). A plain spark.read.parquet(DIR) infers the
partition columns from the directory names instead, and types instance as a
32-bit int (set spark.sql.sources.partitionColumnTypeInference.enabled to
false to get strings). The
simulated columns are seconds as doubles: there is no timestamp column, so
nothing depends on Spark's timestamp units.
"""

from __future__ import annotations

import sys

from pyspark.sql import DataFrame, SparkSession

# Table 3, first column: duplicate rate (%) under the committed faults a
# read-back resolves (lost ack, misleading 500, partial batch), E1 with E1s,
# over the episodes whose fault fired, one row per model.
TABLE3_DUP_RESOLVES = """
SELECT model, 100 * AVG(CAST(duplicated AS DOUBLE)) AS dup_resolves, COUNT(*) AS n
FROM episodes
WHERE experiment IN ('E1', 'E1s') AND fault_fired
  AND fault_mode IN ('timeout_post', 'http500_post', 'partial_batch')
GROUP BY model
ORDER BY model
"""


def session() -> SparkSession:
    return (SparkSession.builder.master("local[2]").appName("limbo")
            .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate())


def read_dataset(spark: SparkSession, path: str) -> DataFrame:
    """A --partition-by dataset with the columns (partition ones included)
    typed as the files store them."""
    return spark.read.option("recursiveFileLookup", "true").parquet(path)


def table3_dup_resolves(spark: SparkSession, episodes: DataFrame) -> dict[str, float]:
    episodes.createOrReplaceTempView("episodes")
    return {r["model"]: r["dup_resolves"] for r in spark.sql(TABLE3_DUP_RESOLVES).collect()}


def main(single: str, dataset: str) -> None:
    spark = session()
    one = spark.read.parquet(single)
    ds = read_dataset(spark, dataset)
    print("single export:", one.count(), "episodes; dataset:", ds.count())
    print("partition columns:", [(f.name, f.dataType.simpleString()) for f in ds.schema if f.name in ("experiment", "instance")])
    for model, rate in table3_dup_resolves(spark, ds).items():
        print(f"{model:20s} {rate:6.2f}")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
