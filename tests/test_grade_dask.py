"""``--executor dask``: each submission a task on a Dask cluster, same gradebook as locally."""

from __future__ import annotations

import pytest
from grade_submissions import honest_variants

from kmlteach.course.grade import Limits, grade_folder

distributed = pytest.importorskip("distributed")


def test_dask_local_cluster_gives_the_local_gradebook(tmp_path):
    folder = tmp_path / "subs"
    folder.mkdir()
    hv = honest_variants()
    for name in ("honest", "partial", "empty"):
        (folder / f"{name}.ipynb").write_bytes(hv[name][0])
    limits = Limits(timeout=30)
    grade_folder(folder, tmp_path / "local.csv", limits=limits, jobs=2, progress=None)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        grade_folder(
            folder,
            tmp_path / "dask.csv",
            limits=limits,
            executor="dask",
            scheduler=cluster.scheduler_address,
            progress=None,
        )
    local = (tmp_path / "local.csv").read_text()
    assert local == (tmp_path / "dask.csv").read_text()
    assert "honest,01,1,2,2,3,2,3,13,13,ok" in local  # 01.dual (3 points) included


def test_a_failed_worker_task_is_a_crashed_row_without_its_text(tmp_path, monkeypatch):
    """Red team 2: a task that raised gave the undocumented status "error" with the
    exception's text; it is ``crashed`` with the exception's class only."""
    import csv

    import kmlteach.course.grade.runner as runner

    def boom(sub_id, *args, **kwargs):
        raise RuntimeError("detail the worker was given")

    monkeypatch.setattr(runner, "grade_submission_sync", boom)
    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "honest.ipynb").write_bytes(honest_variants()["honest"][0])
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        grade_folder(
            folder,
            tmp_path / "dask.csv",
            limits=Limits(timeout=30),
            executor="dask",
            scheduler=cluster.scheduler_address,
            progress=None,
        )
    with open(tmp_path / "dask.csv", newline="", encoding="utf-8") as fh:
        [row] = list(csv.DictReader(fh))
    assert row["status"] == "crashed" and "RuntimeError" in row["message"]
    assert "detail" not in row["message"]
