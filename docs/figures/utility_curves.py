"""Regenerate docs/figures/utility_curves.{csv,png} (Amigó, Mizzaro & Spina, SIGIR 2022, Figure 1):
python docs/figures/utility_curves.py"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from cranfield.analysis.figures import utility_curves  # noqa: E402

HERE = Path(__file__).parent
curves = utility_curves()
names = list(curves)
with open(HERE / "utility_curves.csv", "w") as f:
    f.write("length," + ",".join(f'"{n}"' for n in names) + "\n")
    for k in range(len(curves[names[0]])):
        f.write(f"{k}," + ",".join(f"{curves[n][k]:.6f}" for n in names) + "\n")
fig, ax = plt.subplots(figsize=(7, 4))
for name in names:
    ax.plot(range(len(curves[name])), curves[name], label=name)
ax.axhline(0, color="grey", linewidth=0.5)
ax.axvline(10.5, color="grey", linewidth=0.5, linestyle=":")
ax.set_xlabel("ranking truncated at n' (10 non-relevant documents, then 20 relevant)")
ax.set_ylabel("score / largest |score|")
ax.legend(fontsize="small", ncol=2)
fig.tight_layout()
fig.savefig(HERE / "utility_curves.png")
