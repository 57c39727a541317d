"""The app's screens. The red-case table and the case drill-down live beside these."""

from flipgate.tui.screens.help import HelpScreen
from flipgate.tui.screens.loading import LoadingScreen
from flipgate.tui.screens.overview import OverviewScreen

__all__ = ["HelpScreen", "LoadingScreen", "OverviewScreen"]
