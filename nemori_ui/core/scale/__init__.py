"""Evaluations and sweeps fanned out on Ray: one task per conversation or grid point, run in a
store of its own, whose rows the driver alone lands in the home's store."""
