"""Restitution with a solver whose model has none is refused, as `run --restitution` is."""
import pytest

import moreau


def test_solvers_without_restitution_refuse_it(paths):
    m = moreau.load(paths.model("double_pendulum.xml"))
    d = moreau.Data(m)
    refusing = [s["name"] for s in moreau.solvers() if s["name"] in ("sap", "soft")]
    assert refusing == ["sap", "soft"]
    d.solver = "pgs"
    d.opt.restitution = 0.5
    for name in refusing:
        with pytest.raises(moreau.Error, match=f"solver {name} cannot apply restitution 0.5"):
            d.solver = name
    assert d.solver == "pgs"
    d.opt.restitution = 0
    for name in refusing:
        d.solver = name
        with pytest.raises(moreau.Error, match=f"solver {name} cannot apply restitution: "):
            d.opt.restitution = 0.5
        assert d.opt.restitution == 0
        d.opt.restitution = 0  # e = 0 is every model's
