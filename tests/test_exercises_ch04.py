"""Chapter 04 exercises: references pass, wrong answers fail with a message, stubs say so."""

from __future__ import annotations

import numpy as np
import pytest
from exercise_contract import chapter_ids

from kmlteach import multiclass as M
from kmlteach.exercises import ch04, check, get, registry

IDS = chapter_ids(["04"])  # from the registry: a new exercise is tested at once


def test_registered():
    reg = registry()
    for i in IDS:
        assert i in reg and reg[i].hint and reg[i].solution


@pytest.mark.parametrize("eid", IDS)
def test_reference_passes(eid, capsys):
    assert check(eid, get(eid).reference)
    assert "visible cases passed" in capsys.readouterr().out


@pytest.mark.parametrize("eid", IDS)
def test_written_solution_passes(eid):
    ns = {"np": np}
    exec(get(eid).solution, ns)
    fn = [v for k, v in ns.items() if callable(v) and k != "np" and not k.startswith("__")][-1]
    assert check(eid, fn, verbose=False)


def test_stub_reports_not_implemented(capsys):
    def stub(*args):
        raise NotImplementedError

    for eid in IDS:
        assert not check(eid, stub)
        assert "not implemented yet" in capsys.readouterr().out


def test_wrong_answers_fail(capsys):
    # block y counted from 1 as in the book: off by one block
    def psi_one_based(x, y, k):
        return ch04.psi(x, (y + 1) % k, k)

    assert not check("04.multivector_psi", psi_one_based)
    assert "expected" in capsys.readouterr().out

    def hinge_without_delta(W, x, y, Delta):
        s = W @ x
        return float(np.max(s - s[y]))

    assert not check("04.generalized_hinge", hinge_without_delta)

    def ova_last_index(X, y, X_new, k, fit_binary):
        S = np.column_stack([X_new @ fit_binary(X, np.where(y == c, 1.0, -1.0)) for c in range(k)])
        return k - 1 - np.argmax(S[:, ::-1], axis=1)  # ties to the largest index

    assert not check("04.one_vs_all", ova_last_index)

    def kesler_wrong_sign(x, i, k):
        return -ch04.kesler_vectors(x, i, k)

    assert not check("04.kesler", kesler_wrong_sign)


def test_perceptron_exercise_rejects_a_different_rule():
    def first_violator(X, y, k):
        W = np.zeros((k, X.shape[1]))
        while True:
            upd = False
            for x, yi in zip(X, y):
                s = W @ x
                for j in range(k):
                    if j != yi and s[j] >= s[yi]:
                        W[yi] += x
                        W[j] -= x
                        upd = True
                        break
            if not upd:
                return W

    # the first-violator rule separates too, but follows another path on some case
    assert not check("04.multiclass_perceptron", first_violator, verbose=False)


def test_kesler_reference_matches_kesler_embed():
    X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
    emb = M.kesler_embed(X, [2, 0, 1])
    np.testing.assert_array_equal(ch04.kesler_vectors(X[0], 2, 3), emb.Z[emb.example == 0])


def test_hinge_subgradient_satisfies_the_subgradient_inequality():
    # oracle: the library's generalized hinge, l(W') >= l(W) + <G, W' - W> for every W'
    rng = np.random.default_rng(7)
    for _ in range(50):
        k, n = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        D = rng.uniform(0.5, 2.0, size=(k, k))
        np.fill_diagonal(D, 0.0)
        W, x, y = rng.normal(size=(k, n)), rng.normal(size=n), int(rng.integers(0, k))
        G = ch04.hinge_subgradient(W, x, y, D)
        loss = lambda V, x=x, y=y, D=D: float(M.generalized_hinge(V, x[None, :], [y], delta=D)[0])
        for _ in range(20):
            V = W + rng.normal(size=(k, n))
            assert loss(V) >= loss(W) + np.sum(G * (V - W)) - 1e-12


def test_hinge_subgradient_wrong_sign_fails(capsys):
    def flipped(W, x, y, Delta):
        return -ch04.hinge_subgradient(W, x, y, Delta)

    assert not check("04.hinge_subgradient", flipped)
    assert "expected" in capsys.readouterr().out


def test_one_based_blocks_get_the_convention_not_a_broadcast_error(capsys):
    """Issue 36: Ψ with UML's 1-based labels is named, not answered with numpy's
    'could not broadcast input array from shape (2,) into shape (0,)'."""

    def psi_one_based(x, y, k):
        n = len(x)
        out = np.zeros(k * n)
        out[(y - 1) * n : y * n] = x
        return out

    assert not check("04.multivector_psi", psi_one_based)
    out = " ".join(capsys.readouterr().out.split())
    assert "Convention: counted the blocks from 1" in out and "broadcast" not in out, out


def test_ova_concept_check_states_the_tie_rule_before_asking():
    """Issue 38, point 5: UML's Example 17.1 fails class 2 when the tie is broken by the
    numerical value of the label; the question says so, in the record and the notebook."""
    from pathlib import Path

    from kmlteach.exercises.quiz import questions

    (q,) = [q for q in questions("04") if q.id == "04.c_ova"]
    assert "tie" in q.prompt and "smallest label" in q.prompt
    src = (Path(__file__).resolve().parents[1] / "notebooks" / "src" / "04-multiclass.py").read_text(
        encoding="utf-8"
    )
    block = src[: src.index('ask("04.c_ova"')].rsplit("**Predict first.**", 1)[1]
    assert "tie" in block and "smallest label" in block
