// The Staff tab, for owners: the venue's members, an invite form whose link is
// shown once with a copy button, a role changed, a member disabled or enabled, a new link (also
// the password reset), a member removed after a confirmation. The server checks the role too.
import { byId, h, replace } from '../shared/dom.js';
import { api, messageOf } from './api.js';
import type { Invited, Role, StaffList, StaffMember } from './types.js';
import { choose, clearAlert, showAlert } from './ui.js';

const ROLES: { value: Role; label: string }[] = [
  { value: 'staff', label: 'Staff: orders and service' },
  { value: 'manager', label: 'Manager: also the ordering settings' },
  { value: 'owner', label: 'Owner: also the staff' },
];
const ROLE_NAMES: Record<Role, string> = { owner: 'Owner', manager: 'Manager', staff: 'Staff' };

export interface StaffControl {
  refresh(): Promise<void>;
}

function roleSelect(id: string, value: Role): HTMLSelectElement {
  return h('select', { id }, ...ROLES.map((r) => h('option', { value: r.value, selected: r.value === value }, r.label)));
}

/** The link of an invite, shown once: selectable text and a copy button. */
function inviteLink(invited: Invited): HTMLElement {
  const field = h('input', { id: 'invite-url', type: 'text', readonly: true, value: invited.inviteUrl, class: 'invite-url' });
  const copied = h('span', { role: 'status', class: 'quiet' });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(invited.inviteUrl);
    } catch {
      // No clipboard API (a page on plain http, away from localhost): the selected text copies.
      field.select();
      document.execCommand('copy');
    }
    copied.textContent = 'Copied.';
  };
  return h(
    'div',
    { class: 'invite-result', id: 'invite-result', tabindex: -1 },
    h(
      'p',
      {},
      `The invite link for ${invited.name} (${invited.email}). It is shown only now: send it to them. It works once, until ${new Date(invited.inviteExpiresAt).toLocaleDateString()}.`,
    ),
    h('p', { class: 'field' }, h('label', { for: 'invite-url' }, 'Invite link'), field),
    h('p', {}, h('button', { type: 'button', onclick: () => void copy() }, 'Copy link'), ' ', copied),
  );
}

export function startStaff(me: { id: string }): StaffControl {
  const panel = byId('panel-staff');
  if (!panel) return { refresh: async () => undefined };
  const members = h('div', { id: 'staff-members' });
  const result = h('div', {});

  const email = h('input', { id: 'invite-email', type: 'email', required: true, maxlength: 254, autocomplete: 'off' });
  const name = h('input', { id: 'invite-name', type: 'text', required: true, maxlength: 200, autocomplete: 'off' });
  const role = roleSelect('invite-role', 'staff');
  const form = h(
    'form',
    { class: 'invite-form' },
    h('p', { class: 'field' }, h('label', { for: 'invite-email' }, 'Email'), email),
    h('p', { class: 'field' }, h('label', { for: 'invite-name' }, 'Name'), name),
    h('p', { class: 'field' }, h('label', { for: 'invite-role' }, 'Role'), role),
    h('p', {}, h('button', { type: 'submit', class: 'primary' }, 'Invite')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(async () => {
      const invited = await api<Invited>('POST', '/console/api/staff', {
        email: email.value.trim(),
        name: name.value.trim(),
        role: role.value,
      });
      form.reset();
      showLink(invited);
    });
  });

  replace(
    panel,
    h('h2', { class: 'visually-hidden' }, 'Staff'),
    h(
      'section',
      { class: 'panel-part', 'aria-labelledby': 'invite-title' },
      h('h3', { id: 'invite-title' }, 'Invite a member'),
      form,
      result,
    ),
    h(
      'section',
      { class: 'panel-part', 'aria-labelledby': 'members-title' },
      h('h3', { id: 'members-title', tabindex: -1 }, 'Members'),
      members,
    ),
  );

  function showLink(invited: Invited): void {
    const shown = inviteLink(invited);
    replace(result, shown);
    shown.focus();
  }

  async function act(run: () => Promise<void>): Promise<void> {
    clearAlert();
    try {
      await run();
    } catch (error) {
      showAlert(messageOf(error));
    }
    await refresh();
  }

  function memberRow(m: StaffMember): HTMLElement {
    const base = `member-${m.id}`;
    const select = roleSelect(`${base}-role`, m.role);
    const self = m.id === me.id;
    const state = m.disabled ? 'Disabled' : m.status === 'invited' ? 'Invited: no password yet' : 'Active';
    const patch = (body: Record<string, unknown>) => act(() => api('PATCH', `/console/api/staff/${m.id}`, body));
    const remove = async () => {
      const sure = await choose(
        `Remove ${m.name}?`,
        'They are signed out at once and can no longer sign in. Invite them again to bring them back.',
        [{ value: 'remove', label: 'Remove member', danger: true }],
        'Keep member',
      );
      if (sure) await act(() => api('DELETE', `/console/api/staff/${m.id}`));
      if (sure) byId('members-title')?.focus();
    };
    return h(
      'li',
      { class: `member-row${m.disabled ? ' is-disabled' : ''}`, id: base },
      h(
        'article',
        { 'aria-labelledby': `${base}-name` },
        h('h4', { id: `${base}-name` }, m.name, self ? ' (you)' : ''),
        h('p', { class: 'quiet' }, `${m.email} · ${ROLE_NAMES[m.role]} · ${state}`),
        !self &&
          h(
            'div',
            { class: 'member-actions' },
            h(
              'p',
              { class: 'field inline' },
              h('label', { for: `${base}-role` }, 'Role', h('span', { class: 'visually-hidden' }, ` of ${m.name}`)),
              select,
              h(
                'button',
                { type: 'button', onclick: () => void (select.value !== m.role && patch({ role: select.value })) },
                'Change role',
              ),
            ),
            h(
              'p',
              { class: 'button-row' },
              h(
                'button',
                { type: 'button', 'aria-describedby': `${base}-name`, onclick: () => void patch({ disabled: !m.disabled }) },
                m.disabled ? 'Enable' : 'Disable',
              ),
              h(
                'button',
                {
                  type: 'button',
                  'aria-describedby': `${base}-name`,
                  onclick: () => void act(async () => showLink(await api<Invited>('POST', `/console/api/staff/${m.id}/invite`))),
                },
                'New invite link',
              ),
              h('button', { type: 'button', class: 'danger', 'aria-describedby': `${base}-name`, onclick: () => void remove() }, 'Remove'),
            ),
          ),
      ),
    );
  }

  async function refresh(): Promise<void> {
    let items: StaffMember[];
    try {
      items = (await api<StaffList>('GET', '/console/api/staff?limit=100')).items;
    } catch (error) {
      showAlert(messageOf(error));
      return;
    }
    // The redraw replaces the buttons: a pressed one keeps the focus by its place (row and name).
    const from = document.activeElement instanceof HTMLElement && members.contains(document.activeElement) ? document.activeElement : null;
    const rowId = from?.closest('li[id]')?.id;
    const label = from?.textContent;
    replace(members, h('ul', { class: 'members' }, ...items.map(memberRow)));
    if (from && rowId) {
      const row = byId(rowId);
      const again = row && [...row.querySelectorAll<HTMLElement>('button, select')].find((b) => b.textContent === label);
      (again ?? row?.querySelector<HTMLElement>('button') ?? byId('members-title'))?.focus();
    }
  }

  return { refresh };
}
