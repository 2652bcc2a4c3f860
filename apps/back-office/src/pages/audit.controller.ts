import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import type { Response } from 'express';
import { VendorService } from '#auth';
import { StaffAuditLog } from '#staff';
import { html } from '#web';
import { RequireStaffPermission } from '../web/access.js';
import { auditTable } from '../web/audit-table.js';
import { sendPage } from '../web/layout.js';
import { sessionOf, type StaffRequest } from '../web/staff-request.js';

/** The staff audit trail, newest first, optionally of one subject. */
@Controller('audit')
export class AuditController {
  constructor(
    private readonly audit: StaffAuditLog,
    private readonly vendors: VendorService,
  ) {}

  @Get()
  @RequireStaffPermission('audit:read')
  async page(@Query('subject_type') subjectType: string | undefined, @Query('subject_id') subjectId: string | undefined, @Req() request: StaffRequest, @Res() response: Response): Promise<void> {
    const records = await this.audit.list({ subjectType: typeof subjectType === 'string' ? subjectType : undefined, subjectId: typeof subjectId === 'string' ? subjectId : undefined, limit: 500 });
    // Subjects are mostly vendors: the trail names them.
    const vendorNames = new Map((await this.vendors.list()).map((vendor): [string, string] => [vendor.id, vendor.name]));
    sendPage(response, { title: 'Audit trail', session: sessionOf(request), current: '/audit', body: html`<p>Append-only: the database refuses to change or delete a record.</p>${auditTable(records, 'Audit trail', vendorNames)}` });
  }
}
