import { testDialects } from '@runbook/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appErrorOf, type CatalogCaller, type CatalogTestKit, codeOf, createCatalogTestKit } from '../test-support.js';

describe.each(await testDialects())('custom fields and where-used on %s', (dialect) => {
  let kit: CatalogTestKit;
  let admin: CatalogCaller;
  let developer: CatalogCaller;
  let ws: string;
  let runbook: string;
  let text: string;
  let select: string;
  let creds: string;
  let runbookOnly: string;
  beforeAll(async () => {
    kit = await createCatalogTestKit(dialect);
    admin = kit.as(['developer', 'workspace_manager', 'integrations_admin']);
    developer = kit.as(['developer']);
    ws = (await admin.workspaces.create({ name: 'Fields' })).id;
    runbook = (await admin.runbooks.create({ workspace_id: ws, name: 'With fields' })).id;
    kit.secrets.set('ticket_base', 'https://tickets.example.com', false);
    kit.secrets.set('deploy_token', 's3cret');
    text = (await admin.customFields.create({ name: 'Ticket', field_type: 'text' })).id;
    select = (
      await admin.customFields.create({
        name: 'Risk',
        field_type: 'select',
        options: ['low', 'high'],
        applies_to: 'task',
      })
    ).id;
    creds = (await admin.customFields.create({ name: 'Temp creds', field_type: 'temporary_credentials' })).id;
    runbookOnly = (
      await admin.customFields.create({ name: 'Change window', field_type: 'textarea', applies_to: 'runbook' })
    ).id;
  });
  afterAll(() => kit.destroy());

  it('defines custom fields', async () => {
    const got = await developer.customFields.get({ id: select });
    expect(got).toMatchObject({ name: 'Risk', field_type: 'select', applies_to: 'task', options: ['low', 'high'] });
    expect((await developer.customFields.list({ page: {} })).total).toBe(4);
    expect((await appErrorOf(admin.customFields.create({ name: 'Risk', field_type: 'text' }))).code).toBe('name_taken');
    expect((await appErrorOf(admin.customFields.create({ name: 'S', field_type: 'select' }))).code).toBe(
      'options_required',
    );
    expect((await appErrorOf(admin.customFields.create({ name: 'T', field_type: 'text', options: ['a'] }))).code).toBe(
      'options_not_allowed',
    );
    expect(await codeOf(developer.customFields.create({ name: 'X', field_type: 'text' }))).toBe('FORBIDDEN');
    const updated = await admin.customFields.update({ id: select, options: ['low', 'medium', 'high'] });
    expect(updated.options).toEqual(['low', 'medium', 'high']);
  });

  it('stores values on tasks and runbooks, validating references at save time', async () => {
    const t = await admin.tasks.create({
      runbook_id: runbook,
      name: 'Deploy',
      custom_field_values: [
        { custom_field_id: text, value: '{{system.ticket_base}}/T-1' },
        { custom_field_id: select, value: 'high' },
      ],
    });
    expect(t.custom_field_values).toEqual([
      { custom_field_id: text, value: '{{system.ticket_base}}/T-1' },
      { custom_field_id: select, value: 'high' },
    ]);
    const updated = await admin.tasks.update({
      runbook_id: runbook,
      id: t.id,
      custom_field_values: [
        { custom_field_id: select, value: null },
        { custom_field_id: text, value: 'T-2 {{ system.deploy_token }}' },
      ],
    });
    expect(updated.custom_field_values).toEqual([{ custom_field_id: text, value: 'T-2 {{ system.deploy_token }}' }]);

    const unknown = await appErrorOf(
      admin.tasks.update({
        runbook_id: runbook,
        id: t.id,
        custom_field_values: [{ custom_field_id: text, value: '{{system.missing_a}} {{system.missing_b}}' }],
      }),
    );
    expect(unknown).toMatchObject({ status: 422, code: 'unknown_system_parameters' });
    expect(unknown.errors[0]?.meta).toEqual({ missing: ['missing_a', 'missing_b'] });

    const temp = await appErrorOf(
      admin.tasks.update({
        runbook_id: runbook,
        id: t.id,
        custom_field_values: [{ custom_field_id: creds, value: 'user:{{system.deploy_token}}' }],
      }),
    );
    expect(temp).toMatchObject({ status: 422, code: 'temporary_credentials_not_allowed' });
    expect(temp.message).toContain('system parameters');
    expect(temp.errors[0]?.source).toEqual({ pointer: '/data/attributes/custom_field_values/0/value' });
    // A plain temporary credential is fine.
    await admin.tasks.update({
      runbook_id: runbook,
      id: t.id,
      custom_field_values: [{ custom_field_id: creds, value: 'user:abc' }],
    });

    const badOption = await appErrorOf(
      admin.tasks.update({
        runbook_id: runbook,
        id: t.id,
        custom_field_values: [{ custom_field_id: select, value: 'huge' }],
      }),
    );
    expect(badOption).toMatchObject({ code: 'invalid_option' });
    const wrongSubject = await appErrorOf(
      admin.tasks.update({
        runbook_id: runbook,
        id: t.id,
        custom_field_values: [{ custom_field_id: runbookOnly, value: 'x' }],
      }),
    );
    expect(wrongSubject.code).toBe('custom_field_not_applicable');
    const missingField = await appErrorOf(
      admin.tasks.update({
        runbook_id: runbook,
        id: t.id,
        custom_field_values: [{ custom_field_id: '999999', value: 'x' }],
      }),
    );
    expect(missingField.code).toBe('unknown_custom_field');
    expect((await developer.tasks.get({ runbook_id: runbook, id: t.id })).custom_field_values).toEqual([
      { custom_field_id: text, value: 'T-2 {{ system.deploy_token }}' },
      { custom_field_id: creds, value: 'user:abc' },
    ]);

    const rb = await admin.runbooks.update({
      id: runbook,
      custom_field_values: [{ custom_field_id: runbookOnly, value: 'Sat 02:00 {{system.ticket_base}}' }],
    });
    expect(rb.custom_field_values).toEqual([
      { custom_field_id: runbookOnly, value: 'Sat 02:00 {{system.ticket_base}}' },
    ]);
    expect((await developer.runbooks.list({ workspace_id: ws, page: {} })).items[0]?.custom_field_values).toHaveLength(
      1,
    );
  });

  it('answers where-used from the index: integrations, tasks and custom field values', async () => {
    kit.secrets.set('shared_host', 'https://shared.example.com', false);
    const integration = await admin.integrations.create({
      name: 'Shared',
      url: '{{system.shared_host}}/api',
      headers: [{ name: 'X-Token', value: '{{system.deploy_token}}' }],
    });
    const viaIntegration = await admin.tasks.create({
      runbook_id: runbook,
      name: 'Calls shared',
      integration_id: integration.id,
    });
    const viaField = await admin.tasks.create({
      runbook_id: runbook,
      name: 'Mentions shared',
      custom_field_values: [{ custom_field_id: text, value: 'see {{system.shared_host}}' }],
    });
    const usages = await developer.usages.ofParameter({ name: 'shared_host' });
    expect(usages).toEqual({
      name: 'shared_host',
      integrations: [{ id: integration.id, name: 'Shared' }],
      tasks: [
        { id: viaIntegration.id, runbook_id: runbook, name: 'Calls shared', via: ['integration'] },
        { id: viaField.id, runbook_id: runbook, name: 'Mentions shared', via: ['custom_field'] },
      ],
      custom_field_values: [
        { custom_field_id: text, subject_type: 'task', subject_id: viaField.id, runbook_id: runbook },
      ],
      truncated: false,
    });
    const ticket = await developer.usages.ofParameter({ name: 'ticket_base' });
    expect(ticket.custom_field_values).toEqual([
      { custom_field_id: runbookOnly, subject_type: 'runbook', subject_id: runbook, runbook_id: runbook },
    ]);
    expect((await developer.usages.ofParameter({ name: 'deploy_token' })).integrations).toEqual([
      { id: integration.id, name: 'Shared' },
    ]);

    // Editing the templates re-indexes them; deleting the task drops its references.
    await admin.integrations.update({ id: integration.id, url: 'https://fixed.example.com/api' });
    await admin.tasks.update({
      runbook_id: runbook,
      id: viaField.id,
      custom_field_values: [{ custom_field_id: text, value: null }],
    });
    const after = await developer.usages.ofParameter({ name: 'shared_host' });
    expect(after.integrations).toEqual([]);
    expect(after.tasks).toEqual([]);
    expect(after.custom_field_values).toEqual([]);

    // A user limited to another workspace does not see these tasks.
    const other = (await admin.workspaces.create({ name: 'Elsewhere' })).id;
    const outsider = kit.as([{ role: 'developer', workspace_id: other }]);
    expect((await outsider.usages.ofParameter({ name: 'ticket_base' })).custom_field_values).toEqual([]);
  });
});
