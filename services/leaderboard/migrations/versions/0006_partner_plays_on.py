"""A team member who played on after the partner left is rated by the team's result (issue 36).

Releases before ranked the whole team last in the ratings. The seats rated so are given the team's place as their
rank in `rating_changes`, and every list holding such a game is rated again from its stored sides and ranks, in
rating order, by the service's own model (`rating_backfill.rerate_partners_who_played_on`): the tables then hold
what projecting the log again writes. Without such games it changes nothing.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    from services.leaderboard.rating_backfill import rerate_partners_who_played_on

    rerate_partners_who_played_on(op.get_bind())


def downgrade() -> None:
    """Nothing to undo in the schema: the ranks stay as this rule wrote them."""
