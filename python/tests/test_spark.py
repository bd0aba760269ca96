"""PySpark in local mode reads a single export and a --partition-by dataset;
a Table 3 cell computed in Spark SQL equals the engine's."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from limbo_toolkit import analyze

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "spark" / "table3_cell.py"

pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="Spark needs Java")


def _example():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("table3_cell", EXAMPLE)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_spark_reads_exports_and_table3_cell(simulated: dict[str, Path]) -> None:
    ex = _example()
    spark = ex.session()
    try:
        one = spark.read.parquet(str(simulated["parquet"]))
        ds = ex.read_dataset(spark, str(simulated["dataset"]))
        plain = spark.read.parquet(str(simulated["dataset"]))  # partition discovery: instance from the paths
        assert {f.name: f.dataType.simpleString() for f in plain.schema}["instance"] == "int"
        assert one.count() == ds.count() == 25930
        types = {f.name: f.dataType.simpleString() for f in ds.schema}
        assert types["experiment"] == "string" and types["instance"] == "bigint"
        assert types["duplicated"] == "boolean" and types["delay_s"] == "double" and types["seed"] == "bigint"
        assert not any(t.startswith("timestamp") for t in types.values())
        assert {f.name: f.dataType.simpleString() for f in one.schema} == types
        # Rows of one partition come back with that partition's values.
        e2 = ds.where("experiment = 'E2' AND instance = 0").count()
        assert e2 == one.where("experiment = 'E2' AND instance = 0").count() > 0
        got_ds = ex.table3_dup_resolves(spark, ds)
        got_one = ex.table3_dup_resolves(spark, one)
    finally:
        spark.stop()
    t3 = analyze.tables(simulated["parquet"], 3)[3]
    want = t3[t3["column"] == "dup_resolves"].set_index("row")["value"]
    assert set(got_ds) == set(want.index)
    for model, v in want.items():
        assert got_ds[model] == pytest.approx(v, abs=1e-9) and got_one[model] == pytest.approx(v, abs=1e-9), model
