"""A first list whose window would leave out tournaments received before it is refused on
the read-only session: the run neither takes the standby nor copies the warehouse to record
itself."""

from datetime import date
from pathlib import Path

import pytest

from flows.warehouse import Warehouse

pytestmark = pytest.mark.usefixtures("prefect_server")


def test_a_first_list_leaving_out_earlier_tournaments_is_refused_without_a_copy(tmp_path, capsys):
    from flows.publishing.arguments import ListError
    from flows.rubele.lists import rubele_quarterly_flow
    from tests.flows.rubele.test_draughts import _ingested

    warehouse, _ = _ingested(tmp_path)
    standby = Path(warehouse).with_name(f".{Path(warehouse).name}.standby")
    assert standby.exists()
    capsys.readouterr()
    # DI-1 was received on 2019-03-10: the list of 2020-01-01 cannot be the first
    with pytest.raises(ListError, match="the first on 2019-03-10: publish the list of 2019-07-01"):
        rubele_quarterly_flow("rubele_italiana", date(2020, 1, 1), warehouse)
    assert "writing in a copy" not in capsys.readouterr().out
    assert standby.exists()
    with Warehouse(warehouse).reader() as con:
        failed = con.execute(
            "SELECT count(*) FROM run WHERE flow = 'quarterly' AND status = 'failed'"
        ).fetchone()[0]
    assert failed == 1
