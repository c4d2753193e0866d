import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas/common.js';
import type { App } from '../../http/types.js';
import { VenueParams } from '../venues/index.js';
import type { StaffService } from './staff.service.js';
import { StaffCreateBody, StaffInvited, StaffList, StaffListQuery, StaffMember, StaffParams, StaffPatchBody } from './staff.schemas.js';

type RouteServices = { staff: StaffService };

const tags = ['operator'];
// A response that shows an invite link (a credential): no cache may store it.
const showsInvite = { noStore: true as const };
const showsPeople = { noStore: true as const };

/** The operator's staff routes, mounted under /admin/v1. */
export function staffAdminRoutes(services: RouteServices) {
  return async function routes(app: App): Promise<void> {
    app.post(
      '/venues/:id/staff',
      {
        config: showsInvite,
        schema: {
          operationId: 'inviteStaff',
          tags,
          summary: 'Invite a staff member',
          description:
            "Adds a member to the venue's console with status `invited` and returns their invite link (`inviteUrl`, one use, 7 days), " +
            'shown only in this response. The email is unique per venue whatever its case: 409 `STAFF_EMAIL_TAKEN`.',
          params: VenueParams,
          body: StaffCreateBody,
          response: { 201: StaffInvited, ...errorResponses({ 404: ['VENUE_NOT_FOUND'], 409: ['STAFF_EMAIL_TAKEN'] }) },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await services.staff.invite(request.params.id, request.body, { requestId: request.id })),
    );

    app.get(
      '/venues/:id/staff',
      {
        // Members' emails and names: no cache keeps them.
        config: showsPeople,
        schema: {
          operationId: 'listStaff',
          tags,
          summary: "List a venue's staff",
          description: 'The members in the order they were invited, without invite links.',
          params: VenueParams,
          querystring: StaffListQuery,
          response: { 200: StaffList, ...errorResponses({ 404: ['VENUE_NOT_FOUND'] }) },
        },
      },
      async (request) => services.staff.list(request.params.id, request.query),
    );

    app.patch(
      '/staff/:id',
      {
        schema: {
          operationId: 'updateStaff',
          tags,
          summary: 'Update a staff member',
          description: "Changes a member's name, role or `disabled`; disabling ends every session of the member at once.",
          params: StaffParams,
          body: StaffPatchBody,
          response: { 200: StaffMember, ...errorResponses({ 404: ['STAFF_NOT_FOUND'] }) },
        },
      },
      async (request) => services.staff.update(request.params.id, request.body, { requestId: request.id }),
    );

    app.post(
      '/staff/:id/invite',
      {
        config: showsInvite,
        schema: {
          operationId: 'reinviteStaff',
          tags,
          summary: 'Send a staff member a fresh invite link',
          description:
            'A new invite link (7 days, one use) that is also a password reset: older links stop working, the password is cleared ' +
            '(status `invited` until the link sets one) and every session of the member ends at once.',
          params: StaffParams,
          response: { 201: StaffInvited, ...errorResponses({ 404: ['STAFF_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => reply.status(201).send(await services.staff.reinvite(request.params.id, { requestId: request.id })),
    );

    app.delete(
      '/staff/:id',
      {
        schema: {
          operationId: 'removeStaff',
          tags,
          summary: 'Remove a staff member',
          description: 'Removes the member with their invite and sessions: they are signed out at once.',
          params: StaffParams,
          response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses({ 404: ['STAFF_NOT_FOUND'] }) },
        },
      },
      async (request, reply) => {
        await services.staff.remove(request.params.id, { requestId: request.id });
        return reply.status(204).send(null);
      },
    );
  };
}
