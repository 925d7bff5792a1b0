"""Figure titles are one line; what a claim put in further title lines goes to a caption."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from claims import plotting  # noqa: E402


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
