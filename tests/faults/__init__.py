"""Fault-injection tests (issue #26): bad inputs, full disks, files changing under a read."""
