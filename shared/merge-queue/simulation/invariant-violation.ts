/** Something a correct engine never does happened in a simulation (too many runs, an untested merge). */
export class InvariantViolation extends Error {}
