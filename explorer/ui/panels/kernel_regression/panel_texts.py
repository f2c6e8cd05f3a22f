"""The texts above the kernel regression panel (book §11.2): a formula per kernel of core.kernel_regression
and the explanation."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

_U = "(<i>x</i> &minus; <i>x<sub>i</sub></i>)/<i>h</i>"
_POOLING = ("<i>f</i>(<i>x</i>) = &Sigma;<sub><i>i</i></sub> &alpha;(<i>x</i>, <i>x<sub>i</sub></i>) "
            "<i>y<sub>i</sub></i>, &nbsp; ")

#: kernel name -> (its weights α(x, xᵢ), its K(u)) as rich text; u = (x − xᵢ)/h.
KERNEL_WEIGHTS: dict[str, tuple[str, str]] = {
    "gaussian": (f"&alpha;(<i>x</i>, <i>x<sub>i</sub></i>) = softmax<sub><i>i</i></sub>(&minus;({_U})<sup>2</sup>/2)",
                 "K(<i>u</i>) = exp(&minus;<i>u</i><sup>2</sup>/2)"),
    "boxcar": (QT_TRANSLATE_NOOP("KernelRegressionPanel",
                                 "&alpha;(<i>x</i>, <i>x<sub>i</sub></i>) = K(u<sub><i>i</i></sub>) / "
                                 "&Sigma;<sub><i>j</i></sub> K(u<sub><i>j</i></sub>): an equal share among the "
                                 "points with |<i>x</i> &minus; <i>x<sub>i</sub></i>| &lt; <i>h</i>"),
               QT_TRANSLATE_NOOP("KernelRegressionPanel", "K(<i>u</i>) = 1 if |<i>u</i>| &lt; 1, else 0")),
    "constant": (QT_TRANSLATE_NOOP("KernelRegressionPanel", "&alpha;(<i>x</i>, <i>x<sub>i</sub></i>) = 1/<i>n</i>: "
                                   "every prediction is the mean of the <i>y<sub>i</sub></i>"), "K(<i>u</i>) = 1"),
    "epanechnikov": ("&alpha;(<i>x</i>, <i>x<sub>i</sub></i>) = K(u<sub><i>i</i></sub>) / &Sigma;<sub><i>j</i></sub> "
                     "K(u<sub><i>j</i></sub>)", "K(<i>u</i>) = max(1 &minus; <i>u</i><sup>2</sup>, 0)"),
}
_PARAMETRIC = QT_TRANSLATE_NOOP("KernelRegressionPanel",
                                " &nbsp;&nbsp; (parametric, always Gaussian: 1/<i>h</i> &rarr; learnable <i>w</i>)")
#: The kernels of core.kernel_regression by their names on screen.
KERNEL_NAMES = {"gaussian": QT_TRANSLATE_NOOP("KernelRegressionPanel", "gaussian"),
                "boxcar": QT_TRANSLATE_NOOP("KernelRegressionPanel", "boxcar"),
                "constant": QT_TRANSLATE_NOOP("KernelRegressionPanel", "constant"),
                "epanechnikov": QT_TRANSLATE_NOOP("KernelRegressionPanel", "epanechnikov")}


def _tr(text: str) -> str:
    """A text marked above in the language in force (formulas without words are not in the catalogue)."""
    return QCoreApplication.translate("KernelRegressionPanel", text)


def kernel_formula(name: str) -> str:
    """Rich text, in the language in force: Nadaraya–Watson pooling with the weights and K(u), u = (x − xᵢ)/h, of
    kernel ``name``."""
    weights, k = KERNEL_WEIGHTS[name]
    return f"{_POOLING}{_tr(weights)}, &nbsp; {_tr(k)}, &nbsp; <i>u</i><sub><i>i</i></sub> = {_U}{_tr(_PARAMETRIC)}"


EXPLANATION_HTML = QT_TRANSLATE_NOOP(
    "KernelRegressionPanel",
    "Nadaraya–Watson regression predicts at a query <i>x</i> by averaging the training targets "
    "<i>y<sub>i</sub></i>, each weighted by how close its key <i>x<sub>i</sub></i> is to the query. "
    "The weights come from a kernel K((<i>x</i> &minus; <i>x<sub>i</sub></i>)/<i>h</i>) normalised to sum to "
    "one, so every row of the heatmap is an attention distribution over the training points. A small "
    "bandwidth <i>h</i> copies the nearest point (a wiggly curve); a large one averages everything "
    "(a flat line at the mean). Drag the slider or a training point and watch the fit and the weights "
    "follow; click the plot to see one query's weights. <b>Train w</b> makes 1/<i>h</i> a parameter "
    "learned by SGD on leave-one-out keys, as the book does: it learns a narrow kernel, so its curve "
    "is sharper and less smooth.")
