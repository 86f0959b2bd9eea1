"""A Ray node lost during ``ladder run`` on a two-node cluster: the group that was running there is
played again under its ids, no group is lost or doubled, and the online ratings rebuilt from the log
equal the stored rows bit for bit (issue 23: "so do a killed worker and a lost Ray node")."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.ladder.conftest import tiny_spec
from tests.ladder.test_loop import check_log
from tests.tournaments.test_ray import kill_node, workers_of
from tournaments.ladder.core import create_ladder

PROJECT = Path(__file__).resolve().parents[2]

SLOW_REFERENCE = ["random", "greedy", {"name": "ismcts-a", "bot": "ismcts", "options": {"iterations": 30}},
                  {"name": "ismcts-b", "bot": "ismcts", "options": {"iterations": 30}},
                  {"name": "ismcts-c", "bot": "ismcts", "options": {"iterations": 30}}]
"""Groups of a second or more, so that one is caught running on the node that is lost."""


@pytest.mark.slow
def test_a_ray_node_lost_mid_ladder_loses_and_doubles_no_group(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from ray.cluster_utils import Cluster

    monkeypatch.setenv("RAY_health_check_period_ms", "1000")
    monkeypatch.setenv("RAY_health_check_failure_threshold", "3")
    out = tmp_path / "lad"
    create_ladder(tiny_spec(reference=SLOW_REFERENCE, run={"num_cpus": 2}), str(out))
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "resources": {"head": 1},
                                                            "include_dashboard": False})
    try:
        node = cluster.add_node(num_cpus=1)
        proc = subprocess.Popen([sys.executable, "-m", "dashboards", "ladder", "run", str(out),
                                 "--groups", "12", "--address", cluster.address, "--json"], cwd=PROJECT,
                                env={**os.environ, "CARDARENA_COMPILED": "0"}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while not any(t.startswith(b"ray::_run_batch_on_node") for t in workers_of(node).values()):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "no group ran on the second node"
                time.sleep(0.02)
            kill_node(cluster, node)
            stdout, err = proc.communicate(timeout=300)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    finally:
        cluster.shutdown()
    assert proc.returncode == 0, err
    summary = json.loads(stdout)
    assert [n["node_id"] for n in summary["lost_nodes"]] == [node.node_id]
    assert summary["lost_nodes"][0]["batches_rerun"] >= 1 and summary["resubmitted_batches"] >= 1
    got = check_log(out)   # every group once, whole, and the online ratings rebuilt bit for bit
    assert len(got["groups"]) == 12 and set(got["committed"]) == set(got["groups"])
