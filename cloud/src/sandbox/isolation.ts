/**
 * The one rule that keeps the sandbox apart from production: a marketplace sees a locker only
 * when both are sandbox or both are not. A locker the caller may not see answers exactly like a
 * locker that does not exist (code 3, "not found"), so neither side learns of the other's lockers.
 */
export function seesLocker(marketplace: { sandbox: boolean }, locker: { sandbox: boolean }): boolean {
  return marketplace.sandbox === locker.sandbox;
}
