// `carta staff invite|list|update|reinvite|remove`: the operator's staff API, through
// the same Operator as `carta venue` and `carta key` (in-process, or the running server's /admin/v1).
import { type Command, Option } from 'commander';
import { assertValid } from '../http/validation.js';
import {
  STAFF_ROLES,
  StaffCreateBody,
  StaffPatchBody,
  type StaffCreateInput,
  type StaffInvitedView,
  type StaffPatchInput,
} from '../modules/staff/staff.schemas.js';
import type { Operator } from './operator.js';

interface Output {
  json?: boolean;
}

/** What index.ts lends the staff commands: its operator, printing and argument helpers. */
export interface CommandKit {
  withOperator<T>(fn: (op: Operator) => Promise<T>): Promise<T>;
  print(opts: Output, value: unknown, human: () => string): void;
  idArg(id: string): string;
  jsonOption(): Option;
}

function invitedText(m: StaffInvitedView): string {
  return [
    `member    ${m.id}`,
    `email     ${m.email}`,
    `name      ${m.name} (${m.role})`,
    `invite    ${m.inviteUrl}`,
    `expires   ${m.inviteExpiresAt}`,
    'The link is shown only now and works once; send it to the member.',
  ].join('\n');
}

/** --disabled takes `true` or `false` (commander's choices). */
function disabledFlag(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : value === 'true';
}

export function addStaffCommands(program: Command, kit: CommandKit): void {
  const { withOperator, print, idArg, jsonOption } = kit;
  const staff = program.command('staff').description("invite, list, update and remove a venue's console staff");

  staff
    .command('invite')
    .description('add a member and print their one-use invite link (7 days)')
    .requiredOption('--venue <venueId>', 'venue id')
    .requiredOption('--email <email>', 'email, unique in the venue')
    .requiredOption('--name <name>', 'name shown in the console')
    .addOption(new Option('--role <role>', 'role').choices(STAFF_ROLES).default('staff'))
    .addOption(jsonOption())
    .action(async (opts: Output & { venue: string; email: string; name: string; role: string }) => {
      const input = assertValid<StaffCreateInput>(StaffCreateBody, { email: opts.email, name: opts.name, role: opts.role });
      const m = await withOperator((op) => op.inviteStaff(idArg(opts.venue), input));
      print(opts, m, () => invitedText(m));
    });

  staff
    .command('list')
    .description("list a venue's members (no links)")
    .requiredOption('--venue <venueId>', 'venue id')
    .addOption(jsonOption())
    .action(async (opts: Output & { venue: string }) => {
      const list = await withOperator((op) => op.listStaff(idArg(opts.venue), { page: 1, limit: 100 }));
      print(opts, list, () =>
        list.items.length === 0
          ? 'no staff'
          : list.items.map((m) => `${m.id}  ${m.email}  ${m.name}  ${m.role}  ${m.status}${m.disabled ? ' disabled' : ''}`).join('\n'),
      );
    });

  staff
    .command('update')
    .description("change a member's name, role, or disable them (their sessions end at once)")
    .argument('<memberId>', 'member id')
    .option('--name <name>', 'name')
    .addOption(new Option('--role <role>', 'role').choices(STAFF_ROLES))
    .addOption(new Option('--disabled <bool>', 'true disables the member, false enables them').choices(['true', 'false']))
    .addOption(jsonOption())
    .action(async (id: string, opts: Output & { name?: string; role?: string; disabled?: string }) => {
      const patch = assertValid<StaffPatchInput>(
        StaffPatchBody,
        Object.fromEntries(
          Object.entries({ name: opts.name, role: opts.role, disabled: disabledFlag(opts.disabled) }).filter(([, v]) => v !== undefined),
        ),
      );
      const m = await withOperator((op) => op.updateStaff(idArg(id), patch));
      print(opts, m, () => `${m.id}  ${m.email}  ${m.name}  ${m.role}  ${m.status}${m.disabled ? ' disabled' : ''}`);
    });

  staff
    .command('reinvite')
    .description('a fresh invite link, also a password reset: older links, the password and every session end')
    .argument('<memberId>', 'member id')
    .addOption(jsonOption())
    .action(async (id: string, opts: Output) => {
      const m = await withOperator((op) => op.reinviteStaff(idArg(id)));
      print(opts, m, () => invitedText(m));
    });

  staff
    .command('remove')
    .description('remove a member; they are signed out at once')
    .argument('<memberId>', 'member id')
    .addOption(jsonOption())
    .action(async (id: string, opts: Output) => {
      await withOperator((op) => op.removeStaff(idArg(id)));
      print(opts, { id, removed: true }, () => `removed ${id}`);
    });
}
