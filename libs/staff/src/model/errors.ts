import { PageForbidden, PageRefused } from '#web';

/**
 * A staff action the rules refuse (the proposer approving, a proposal already decided, a
 * resolution contradicting a verified provider outcome). Pages show the message with 409; it is
 * never an API error code, so it is not part of the vendors' error catalogues.
 */
export class StaffActionRefused extends PageRefused {
  constructor(message: string) {
    super(message);
    this.name = 'StaffActionRefused';
  }
}

/** The signed-in person's role does not hold the permission (403). */
export class StaffPermissionDenied extends PageForbidden {
  constructor(message: string) {
    super(message);
    this.name = 'StaffPermissionDenied';
  }
}
