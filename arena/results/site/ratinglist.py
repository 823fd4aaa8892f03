"""The rating list over many results folders (``arena ratings --format html``) as one page in
the report site's style: its templates, stylesheet (with the palette), sortable tables and
Elo plot, all inside the one file so it opens from anywhere.  Every value reaches the page
through Jinja2's autoescape; only the site's own stylesheet and script are pasted as they are.
"""

from __future__ import annotations

import base64
from datetime import UTC, datetime

from ..ratingtables import RatingList, folder_rows, list_rows, los_rows, notes, split_rows
from . import asset_text, plots, template_environment


def ratings_page(rl: RatingList) -> str:
    """The page's HTML."""
    fit = rl.fit
    headers, rows = list_rows(rl)
    los_headers, los = los_rows(rl)
    folder_headers, folders = folder_rows(rl)
    split_headers, split = split_rows(rl)
    plotted = [(r.engine, r.elo, r.low, r.high) for r in fit.ratings if None not in (r.elo, r.low, r.high)]
    plot = ""
    if len(plotted) > 1:  # an <img>: nothing drawn in it can run in the page
        svg = plots.elo_plot(plotted)  # type: ignore[arg-type]  # None is left out above
        plot = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    site = {
        "title": "arena · rating list",
        "game": rl.game_text,
        "folders": len(rl.folders),
        "games": rl.games,
        "written": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "progress": None,
    }
    return (
        template_environment()
        .get_template("ratings.html")
        .render(
            site=site,
            root="",
            css=asset_text("site.css"),
            tables_js=asset_text("tables.js"),
            notes=notes(rl)[1:],  # the first is the header's
            elo_label=rl.elo_label,
            anchor=fit.anchor,
            estimate=fit.method,
            method=fit.interval_method,
            headers=headers,
            rows=rows,
            plot=plot,
            los_headers=los_headers,
            los_rows=los,
            folder_headers=folder_headers,
            folder_rows=folders,
            split_headers=split_headers,
            split_rows=split,
        )
    )
