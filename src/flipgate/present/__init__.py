"""Presentation: what a person reads (reports, the drill-down's view model, untrusted text made safe); the only place outside the app that imports Rich."""
