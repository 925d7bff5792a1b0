"""Figure titles are one line; what a claim put in further title lines goes to a caption."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from claims.reporting import plotting  # noqa: E402


def test_titles_become_one_line_and_the_rest_a_caption():
    fig, axes = plt.subplots(1, 3, figsize=(12, 4))
    axes[0].set_title("n_hat against T\nunion learner: slope 0.68 [0.65, 0.71] (inconclusive)",
                      fontsize=8)
    axes[1].set_title("short title", fontsize=8)
    long = "at the theorem's budget: " + "a very long clause, " * 20 + "the end"
    axes[2].set_title(long, fontsize=8)
    caption = plotting.titles_to_caption(fig)
    titles = [ax.title.get_text() for ax in axes]
    assert all("\n" not in t for t in titles)
    assert titles[0] == "(1) n_hat against T …" and titles[1] == "short title"
    assert titles[2].startswith("(3) at the theorem's budget") and titles[2].endswith("…")
    assert len(titles[2]) < len(long) // 2
    lines = caption.splitlines()
    assert lines == ["(1) n_hat against T: union learner: slope 0.68 [0.65, 0.71] (inconclusive)",
                     f"(3) {long}"]
    plt.close(fig)


def test_save_writes_the_caption_under_the_figure(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2])
    ax.set_title("one line\nverdict: holds in 3 of 3 settings")
    texts = []
    orig = fig.text

    def spy(*args, **kwargs):
        texts.append(args[2])
        return orig(*args, **kwargs)

    fig.text = spy
    out = plotting.save(fig, tmp_path, "f", "F: a figure")
    assert out.exists()
    assert any("verdict: holds in 3 of 3 settings" in t for t in texts)


# -- what the figures say on their face ---------------------------------------------------------
def test_signs_are_written_as_signs_on_every_figure():
    assert plotting.signs("margin 1/2 -+ 4 alpha, 1 +- 0.25") == "margin 1/2 ∓ 4 alpha, 1 ± 0.25"
    assert plotting.signs("a-+b, $x^+-$, -1") == "a-+b, $x^+-$, -1"  # not a sign there
    fig, ax = plt.subplots()
    ax.set_title("hard family (margin 1/2 -+ 4 alpha)")
    ax.set_xlabel("slope 1 +- 0.25")
    plotting._face_text(fig, smoke=False)
    assert ax.get_title() == "hard family (margin 1/2 ∓ 4 alpha)"
    assert ax.get_xlabel() == "slope 1 ± 0.25"
    plt.close(fig)


def test_a_smoke_run_figure_never_reads_holds_alone():
    fig, ax = plt.subplots()
    ax.set_title("C1: slope 1.01 [0.94, 1.08]: holds; C2: does not hold")
    plotting._face_text(fig, smoke=True)
    assert ax.get_title() == ("C1: slope 1.01 [0.94, 1.08]: smoke run: holds; C2: smoke run: "
                              "does not hold")
    plt.close(fig)


def test_the_overview_reads_bands_and_references_from_every_kind_of_theory_text():
    from claims.reporting import overview
    c4 = ("d^2 (BMN20, k_eff = d^2): b = 2, band [1.75, 2.25]; alternative d (VC price, "
          "k_eff ~ d): b = 1, band [0.75, 1.25]")
    assert overview.band_of(c4) == (1.75, 2.25)
    assert overview.references_of(c4) == {"predicted": (2.0, 2.0), "alternative": (1.0, 1.0)}
    c1 = ("Thm 4.9's 1/alpha [1.00, 1.18], band [0.75, 1.43]; alternative the agnostic "
          "1/alpha^2 [2.00, 2.00], band [1.75, 2.25]")
    assert overview.references_of(c1) == {"predicted": (1.0, 1.18), "alternative": (2.0, 2.0)}
    # C5: an equivalence margin on the log ratio over w_pub 0.25..0.75, drawn on the slope's
    # scale (the log ratio over ln(0.75/0.25))
    c5 = ("equivalent: n_hat changes by at most a factor 1.25 over w_pub 0.25..0.75, log ratio "
          "within [-0.223, 0.223] (Thm 4.9 in the total n: 0; explicit formula: 0.032); "
          "alternative: a fixed number of private examples, n ~ 1/(1 - w_pub): log ratio 1.10 "
          "(a factor 3.0)")
    lo, hi = overview.band_of(c5)
    scale = math.log(3)
    assert math.isclose(lo, -0.223 / scale) and math.isclose(hi, 0.223 / scale)
    refs = overview.references_of(c5)
    assert refs["predicted"] == (0.0, 0.0)
    assert math.isclose(refs["alternative"][0], 1.10 / scale)
    assert overview.band_of("no band stated") is None and overview.references_of("x") == {}


def test_overview_row_labels_keep_whole_words_in_two_lines():
    from claims.reporting import overview
    label = overview.row_label("every, d=1: hard family (margin 1/2 -+ 4 alpha, one population "
                               "per alpha), d=1, epsilon=1")
    lines = label.split("\n")
    assert len(lines) == 2 and all(len(ln) <= 30 for ln in lines)
    assert "∓" in label and lines[1].endswith("…")
    words = set("every, d=1: hard family (margin 1/2 ∓ 4 alpha, one population per alpha), "
                "d=1, epsilon=1".split())
    assert all(w in words for w in label.replace("…", "").split())
    assert overview.verdict_colour("holds (...)") == "tab:green"
    assert overview.verdict_colour("holds (...)", smoke=True) == "black"
