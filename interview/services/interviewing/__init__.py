"""Mock interviews, one module per concern: who may see a round (access), invitations, rounds an interviewer
schedules (scheduling), notes, scorecards, the engine's side of a scorecard (engine_comparison), calibration
of interviewers, and the reference values only the interviewer sees (reference)."""
