import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  artifacts,
  chromiumFound,
  chromiumPath,
  launchChromium,
  type Platform,
  startBrowserPlatform,
} from './support.js';

const inCi = ['true', '1'].includes((process.env.CI ?? '').toLowerCase());

// In CI a missing browser is a failure (counted as a failed test), never a silent skip.
describe.runIf(inCi)('the browser for these tests', () => {
  it(`is installed at ${chromiumPath}`, () => {
    expect(
      chromiumFound,
      `Chromium not found at ${chromiumPath}: install it with \`apt-get install -y chromium\` ` +
        '(.ci/run does this) or set CHROMIUM_PATH.',
    ).toBe(true);
  });
});

describe.skipIf(!chromiumFound)('API reference with Try at /docs (chromium)', () => {
  let platform: Platform | undefined;
  let stopPlatform: (() => Promise<void>) | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base: string;
  const requested: string[] = [];
  const problems: string[] = [];
  const seeded = { workspaceId: '', runbookId: '', taskId: '' };

  const api = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${platform?.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as { data: { id: string } };
    if (res.status !== 201) throw new Error(`seeding ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json.data.id;
  };

  const screenshot = (name: string, target: Page | Locator = page) =>
    target.screenshot({ path: join(artifacts, name) });

  /** Opens an operation from the sidebar and switches it to Try mode; returns its panel. */
  const tryOperation = async (tag: string, operationId: string): Promise<Locator> => {
    await page.locator(`#rb-sidebar a[data-operation-id="${operationId}"]`).click();
    const panel = page.locator(`#operations-${tag}-${operationId}`);
    await panel.locator('button.try-out__btn', { hasText: 'Try it out' }).click();
    await panel.locator('button.execute').waitFor();
    return panel;
  };

  /** Executes the operation in `panel`; returns the status, the parsed body and the cURL command. */
  const execute = async (panel: Locator) => {
    await panel.locator('button.execute').click();
    const row = panel.locator('.live-responses-table tbody tr.response').first();
    await row.waitFor();
    const status = (await row.locator('.response-col_status').textContent())?.trim();
    const body = JSON.parse((await row.locator('.highlight-code pre').first().textContent()) ?? 'null');
    const curl = (await panel.locator('.curl-command pre.curl').textContent()) ?? '';
    await panel.locator('.curl-command .copy-to-clipboard button').waitFor();
    // The live part of the panel: cURL command, request URL, status and body.
    const live = panel.locator('.responses-inner div', { has: page.locator('.live-responses-table') }).last();
    return { status, body, curl, live };
  };

  beforeAll(async () => {
    ({ platform, stop: stopPlatform } = await startBrowserPlatform('browser'));
    base = platform.gatewayUrl;

    seeded.workspaceId = await api('POST', '/core/workspaces', {
      data: { type: 'workspace', attributes: { name: 'Operations', key: 'OPS' } },
    });
    seeded.runbookId = await api('POST', '/core/runbooks', {
      data: {
        type: 'runbook',
        attributes: { name: 'Database failover' },
        relationships: { workspace: { data: { id: seeded.workspaceId, type: 'workspace' } } },
      },
    });
    seeded.taskId = await api('POST', `/core/runbooks/${seeded.runbookId}/tasks`, {
      data: { type: 'task', attributes: { name: 'Stop writes', duration: 60 } },
    });

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(10_000);
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stopPlatform?.();
  });

  it('loads from the instance alone, with the live-data warning, and no CSP or script errors', async () => {
    await page.goto(`${base}/docs`);
    expect(new URL(page.url()).pathname).toBe('/docs/');
    await page.locator('.opblock-tag-section').first().waitFor();
    await page.locator('#rb-sidebar a[data-operation-id="runbooks-list"]').waitFor();

    const warning = page.locator('#rb-live-data-warning');
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toContain('Try calls act on real data');

    // The Try base URL defaults to this instance and is editable.
    const baseUrl = page.locator('.servers input[data-variable="base_url"]');
    expect(await baseUrl.inputValue()).toBe(base);
    expect(await baseUrl.isEditable()).toBe(true);
    expect(await page.locator('.computed-url code').textContent()).toBe(base);

    // Sidebar groups operations by resource.
    const groups = await page.locator('#rb-sidebar h2').allTextContents();
    expect(groups).toEqual(expect.arrayContaining(['Workspaces', 'Runbooks', 'Tasks', 'System parameters']));

    await screenshot('01-docs-overview.png');
    expect(requested.length).toBeGreaterThan(3);
    for (const url of requested) expect(new URL(url).origin, url).toBe(base);
    expect(problems).toEqual([]);
  });

  it('authorizes with a user app token', async () => {
    await page.locator('.auth-wrapper button.authorize').click();
    const modal = page.locator('.modal-ux');
    await modal.locator('#auth-bearer-value').fill(platform?.adminToken ?? '');
    await screenshot('02-authorize-dialog.png');
    await modal.locator('button[type=submit]', { hasText: 'Authorize' }).click();
    await modal.locator('button.btn-done', { hasText: 'Close' }).waitFor();
    await modal.locator('button', { hasText: 'Logout' }).waitFor();
    await modal.locator('button.btn-done').click();
    await page.locator('.auth-wrapper button.authorize.locked').waitFor();
  });

  it('Try on "List Runbooks": status 200, the runbook in the body, a copyable cURL command', async () => {
    const panel = await tryOperation('runbooks', 'runbooks-list');
    const { status, body, curl, live } = await execute(panel);
    expect(status).toBe('200');
    expect(body.data).toEqual([
      expect.objectContaining({
        id: seeded.runbookId,
        type: 'runbook',
        attributes: expect.objectContaining({ name: 'Database failover' }),
      }),
    ]);
    expect(curl).toContain(`curl -X 'GET'`);
    expect(curl).toContain(`'${base}/core/runbooks'`);
    expect(curl).toContain(`Authorization: Bearer ${platform?.adminToken}`);
    await screenshot('03-list-runbooks-response.png', live);
  });

  it('Try on "Get a Task" with runbook_id and id filled: status 200 and the task', async () => {
    const panel = await tryOperation('tasks', 'tasks-get');
    await panel.locator('tr[data-param-name="runbook_id"] input').fill(seeded.runbookId);
    await panel.locator('tr[data-param-name="id"] input').fill(seeded.taskId);
    await panel.locator('button.execute').scrollIntoViewIfNeeded();
    await screenshot('04-get-task-parameters.png');
    const { status, body, curl, live } = await execute(panel);
    expect(status).toBe('200');
    expect(body.data).toMatchObject({ id: seeded.taskId, type: 'task', attributes: { name: 'Stop writes' } });
    expect(curl).toContain(`${base}/core/runbooks/${seeded.runbookId}/tasks/${seeded.taskId}`);
    await screenshot('05-get-task-response.png', live);
  });

  it('Try on "Create a Workspace" with the pre-filled example body: 201', async () => {
    const panel = await tryOperation('workspaces', 'workspaces-create');
    const prefilled = JSON.parse(await panel.locator('textarea.body-param__text').inputValue());
    expect(prefilled).toMatchObject({ data: { type: 'workspace', attributes: { name: expect.any(String) } } });
    await panel.locator('button.execute').scrollIntoViewIfNeeded();
    await screenshot('06-create-workspace-prefilled.png');
    const { status, body, curl, live } = await execute(panel);
    expect(status).toBe('201');
    expect(body.data).toMatchObject({ type: 'workspace', attributes: prefilled.data.attributes });
    expect(curl).toContain(`curl -X 'POST'`);
    await screenshot('07-create-workspace-response.png', live);
  });

  it('made no request outside the instance during the whole session', () => {
    expect(requested.filter((url) => url.includes('/core/')).length).toBeGreaterThanOrEqual(3);
    for (const url of requested) expect(new URL(url).origin, url).toBe(base);
    expect(problems).toEqual([]);
  });
});
