import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, chromiumFound, launchChromium, type Platform, startBrowserPlatform } from './support.js';

describe.skipIf(!chromiumFound)('settings UI at /settings (chromium)', () => {
  let platform: Platform;
  let stopPlatform: (() => Promise<void>) | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let base: string;
  const problems: string[] = [];
  const bodies: Promise<string>[] = [];
  const secretValue = `sk_live_${Math.random().toString(36).slice(2)}_first`;
  const replacedValue = `sk_live_${Math.random().toString(36).slice(2)}_second`;

  const screenshot = (name: string, target: Page = page) =>
    target.screenshot({ path: join(artifacts, `settings-${name}.png`), fullPage: true });

  /** A new browser context and page; `expectedStatuses`: failed responses the test provokes on purpose. */
  const newPage = async (expectedStatuses: number[] = []) => {
    const ctx = await (browser as Browser).newContext({ viewport: { width: 1280, height: 800 } });
    const p = await ctx.newPage();
    p.setDefaultTimeout(10_000);
    p.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    p.on('console', (message) => {
      // A 401 from users.me before sign-in is expected and logged by chromium as a failed resource.
      const expected = [401, ...expectedStatuses].some((status) => message.text().includes(`status of ${status}`));
      if (message.type() === 'error' && !expected && !message.text().includes('401'))
        problems.push(`console: ${message.text()}`);
    });
    p.on('response', (response) => {
      bodies.push(response.text().catch(() => ''));
    });
    return { ctx, p };
  };

  const signIn = async (p: Page, email: string, password: string) => {
    await p.goto(`${base}/settings`);
    await p.locator('form[aria-labelledby="sign-in-title"]').waitFor();
    await p.locator('input[name=email]').fill(email);
    await p.locator('input[name=password]').fill(password);
    await p.locator('button[type=submit]', { hasText: 'Sign in' }).click();
  };

  /** Creates a global developer through the API (as the admin) with a web sign-in password. */
  const createUser = async (first_name: string, last_name: string, email: string, password: string) => {
    const admin = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/core/users`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        data: {
          type: 'user',
          attributes: { first_name, last_name, email, roles: [{ role: 'developer', workspace_id: null }] },
        },
      }),
    });
    expect(created.status).toBe(201);
    const userId = ((await created.json()) as { data: { id: string } }).data.id;
    const set = await fetch(`${base}/trpc/users.setPassword`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ id: userId, password }),
    });
    expect(set.status).toBe(200);
    return userId;
  };

  beforeAll(async () => {
    ({ platform, stop: stopPlatform } = await startBrowserPlatform('settings'));
    base = platform.gatewayUrl;
    browser = await launchChromium();
    ({ ctx: context, p: page } = await newPage());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await stopPlatform?.();
  });

  it('serves the app with a self-only CSP and falls back to index.html for client routes', async () => {
    const res = await fetch(`${base}/settings/tokens`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('<div id="root">');
    expect((await fetch(`${base}/settings`, { redirect: 'manual' })).status).toBe(301);
  });

  it('refuses a wrong password with a readable message, then signs the admin in', async () => {
    expect(platform.adminPassword).toBeTruthy();
    await signIn(page, platform.adminEmail, 'not the right password');
    await page.locator('.sign-in .error').waitFor();
    expect(await page.locator('.sign-in .error').textContent()).toContain('email or password is incorrect');
    await screenshot('01-sign-in-error');

    await page.locator('input[name=password]').fill(platform.adminPassword);
    await page.locator('button[type=submit]', { hasText: 'Sign in' }).click();
    await page.locator('h1', { hasText: 'System Parameters' }).waitFor();
    expect(await page.getByTestId('signed-in-user').textContent()).toContain(platform.adminEmail);

    const cookies = await context.cookies(base);
    const session = cookies.find((c) => c.name === 'rb_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(session?.value).toMatch(/^rbw_/);
    expect(cookies.find((c) => c.name === 'rb_csrf')).toMatchObject({ httpOnly: false, sameSite: 'Strict' });
    await screenshot('02-parameters-empty');
  });

  it('answers repeated failed sign-ins with 429 and Retry-After (per email and IP)', async () => {
    const attempt = () =>
      fetch(`${base}/settings/api/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'nobody@example.com', password: 'guess guess guess' }),
      });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const doc = (await limited.json()) as { errors: Array<{ code: string }> };
    expect(doc.errors[0]?.code).toBe('rate_limited');
  });

  it('creates a secret parameter through the modal, explaining an invalid name inline', async () => {
    await page.locator('button', { hasText: 'Add new parameter' }).click();
    const modal = page.locator('[role=dialog]');
    await modal.locator('h2', { hasText: 'Create a new System Parameter' }).waitFor();
    expect(await modal.locator('input[role=switch]').isChecked()).toBe(true);
    await modal.locator('input[name=name]').fill('Payments-Key');
    await page.getByTestId('name-error').waitFor();
    expect(await page.getByTestId('name-error').textContent()).toMatch(/lowercase/i);
    expect(await modal.locator('button[type=submit]').isDisabled()).toBe(true);
    await screenshot('03-create-invalid-name');

    await modal.locator('input[name=name]').fill('payments_api_key');
    await modal.locator('textarea[name=value]').fill(secretValue);
    await modal.locator('button[type=submit]', { hasText: '+ Create' }).click();
    await modal.waitFor({ state: 'detached' });

    const panel = page.getByTestId('edit-panel');
    await panel.locator('h2', { hasText: 'Payments Api Key' }).or(panel.locator('h2')).first().waitFor();
    await page.locator('tr[data-name="payments_api_key"]').waitFor();
    const value = panel.locator('textarea[name=value]');
    expect(await value.inputValue()).toBe('');
    expect(await value.getAttribute('placeholder')).toBe('Secret — enter a new value to replace it');
    await panel.getByTestId('where-used').waitFor();
    await panel.getByTestId('history').locator('li').first().waitFor();
    expect(await page.content()).not.toContain(secretValue);
    await screenshot('04-parameter-panel');
  });

  it('edits the display name and replaces the secret value in the panel; Discard resets', async () => {
    const panel = page.getByTestId('edit-panel');
    await panel.locator('input[name=display_name]').fill('Something else');
    await panel.locator('button', { hasText: 'Discard' }).click();
    expect(await panel.locator('input[name=display_name]').inputValue()).not.toBe('Something else');

    await panel.locator('input[name=display_name]').fill('Payments API key');
    await panel.locator('textarea[name=value]').fill(replacedValue);
    await panel.locator('button[type=submit]', { hasText: 'Save' }).click();
    await panel.locator('.ok', { hasText: 'Saved.' }).waitFor();
    await page.locator('tr[data-name="payments_api_key"] td', { hasText: 'Payments API key' }).waitFor();
    await panel.getByTestId('history').locator('li').nth(1).waitFor();
    expect(await panel.locator('textarea[name=value]').inputValue()).toBe('');
    expect(await panel.locator('.hint').first().textContent()).toContain('version 2');
    await screenshot('05-parameter-saved');
  });

  it('never shows the secret value in the DOM or in any network response', async () => {
    await page.reload();
    await page.locator('tr[data-name="payments_api_key"]').click();
    await page.getByTestId('edit-panel').getByTestId('history').waitFor();
    const html = await page.content();
    expect(html).not.toContain(secretValue);
    expect(html).not.toContain(replacedValue);
    const all = await Promise.all(bodies);
    expect(all.length).toBeGreaterThan(10);
    for (const body of all) {
      expect(body).not.toContain(secretValue);
      expect(body).not.toContain(replacedValue);
    }
  });

  it('deletes the parameter from the panel after confirmation', async () => {
    const panel = page.getByTestId('edit-panel');
    await panel.locator('button[aria-label="Delete parameter"]').click();
    const confirm = panel.locator('[role=alertdialog]');
    await confirm.waitFor();
    await screenshot('06-delete-confirm');
    await confirm.locator('button', { hasText: 'Delete' }).click();
    await panel.waitFor({ state: 'detached' });
    await page.locator('tr[data-name="payments_api_key"]').waitFor({ state: 'detached' });
    const res = await fetch(`${base}/core/system_parameters/payments_api_key`, {
      headers: { authorization: `Bearer ${platform.adminToken}` },
    });
    expect(res.status).toBe(404);
  });

  it('refuses a cookie-authenticated write without the CSRF header (403), accepts it with the header', async () => {
    const before = problems.length;
    const results = await page.evaluate(async () => {
      const csrf = document.cookie.match(/(?:^|; )rb_csrf=([^;]*)/)?.[1] ?? '';
      const body = JSON.stringify({
        data: { type: 'system_parameter', attributes: { name: 'csrf_probe', value: 'x', secret: false } },
      });
      const post = (headers: Record<string, string>) =>
        fetch('/trpc/systemParameters.create', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        }).then(async (r) => ({ status: r.status, body: await r.text() }));
      const rest = await fetch('/core/system_parameters', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      }).then((r) => r.status);
      return {
        without: await post({}),
        wrong: await post({ 'x-csrf-token': 'nope' }),
        rest,
        with: await post({ 'x-csrf-token': decodeURIComponent(csrf) }),
      };
    });
    expect(results.without.status).toBe(403);
    expect(results.without.body).toContain('csrf_token_invalid');
    expect(results.wrong.status).toBe(403);
    expect(results.rest).toBe(403);
    expect(results.with.status).toBe(200);
    // The three refusals above are logged by chromium as failed resources: expected here.
    expect(problems.splice(before).every((p) => p.includes('403'))).toBe(true);
    // Bearer tokens are exempt and keep working.
    const viaToken = await fetch(`${base}/core/system_parameters/csrf_probe`, {
      headers: { authorization: `Bearer ${platform.adminToken}` },
    });
    expect(viaToken.status).toBe(200);
  });

  it('lists every parameter, following links.next 100 at a time', async () => {
    const admin = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
    for (let batch = 0; batch < 11; batch++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          fetch(`${base}/core/system_parameters`, {
            method: 'POST',
            headers: admin,
            body: JSON.stringify({
              data: {
                type: 'system_parameter',
                attributes: { name: `bulk_${batch * 10 + i}`, value: 'x', secret: false },
              },
            }),
          }).then((res) => expect(res.status).toBe(201)),
        ),
      );
    }
    const total = (
      (await (await fetch(`${base}/core/system_parameters?page[size]=1`, { headers: admin })).json()) as {
        meta: { page: { total: number } };
      }
    ).meta.page.total;
    expect(total).toBeGreaterThan(100);
    await page.goto(`${base}/settings/parameters`);
    const rows = page.locator('tr[data-name]');
    await page.locator('tr[data-name="bulk_0"]').waitFor();
    expect(await rows.count()).toBe(100);
    await page.getByRole('button', { name: /Show more/ }).click();
    await expect.poll(() => rows.count()).toBe(total);
    expect(await page.getByRole('button', { name: /Show more/ }).count()).toBe(0);
  });

  it('creates a user app token shown once, which works with fetch until revoked (then 401 within ~1.1 s)', async () => {
    await page.locator('nav a', { hasText: 'User App Tokens' }).click();
    await page.locator('h1', { hasText: 'User App Tokens' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings/tokens');
    await page.locator('input[name=label]').fill('browser test');
    await page.locator('button[type=submit]', { hasText: 'Create token' }).click();
    const shown = page.getByTestId('new-token');
    await shown.waitFor();
    const token = (await shown.textContent()) ?? '';
    expect(token).toMatch(/^rbt_/);
    expect(await page.locator('.new-token .warning').textContent()).toContain('shown only once');
    await page.locator('.new-token button', { hasText: 'Copy' }).waitFor();
    await page.locator('tr[data-label="browser test"]').waitFor();
    await screenshot('07-token-created');

    const me = () => fetch(`${base}/core/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me()).status).toBe(200);

    await page.locator('.new-token button', { hasText: 'Done' }).click();
    const row = page.locator('tr[data-label="browser test"]');
    await row.locator('button', { hasText: 'Revoke' }).click();
    await screenshot('08-token-revoke-confirm');
    await row.locator('button', { hasText: 'Confirm revoke' }).click();
    await row.locator('.badge', { hasText: 'Revoked' }).waitFor();
    const revokedAt = Date.now();
    let status = (await me()).status;
    while (status !== 401 && Date.now() - revokedAt < 1_500) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await me()).status;
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(1_500);
    await screenshot('09-token-revoked');
  });

  it('shows the list read-only to a user without integrations_admin', async () => {
    const admin = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
    const password = 'rita has a long password';
    await createUser('Rita', 'Reader', 'rita@example.com', password);
    // A parameter to look at.
    await fetch(`${base}/core/system_parameters`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        data: { type: 'system_parameter', attributes: { name: 'base_url', value: 'https://x.example', secret: false } },
      }),
    });

    const { ctx, p } = await newPage();
    await signIn(p, 'rita@example.com', password);
    await p.getByTestId('read-only').waitFor();
    expect(await p.locator('button', { hasText: 'Add new parameter' }).count()).toBe(0);
    await p.locator('tr[data-name="base_url"]').click();
    const panel = p.getByTestId('edit-panel');
    await panel.locator('input[name=display_name]').waitFor();
    expect(await panel.locator('input[name=display_name]').getAttribute('readonly')).not.toBeNull();
    expect(await panel.locator('textarea[name=value]').inputValue()).toBe('https://x.example');
    expect(await panel.locator('button', { hasText: 'Save' }).count()).toBe(0);
    expect(await panel.locator('button[aria-label="Delete parameter"]').count()).toBe(0);
    await screenshot('10-read-only', p);
    await ctx.close();
  });

  it("changes the signed-in user's password on the Account screen; other browsers are signed out", async () => {
    const oldPassword = 'carl has an old password';
    const newPassword = 'carl has a brand new password';
    await createUser('Carl', 'Changer', 'carl@example.com', oldPassword);

    const other = await newPage();
    await signIn(other.p, 'carl@example.com', oldPassword);
    await other.p.getByTestId('signed-in-user').waitFor();
    const { ctx, p } = await newPage([422, 401]);
    await signIn(p, 'carl@example.com', oldPassword);
    await p.locator('nav a', { hasText: 'Account' }).click();
    expect(new URL(p.url()).pathname).toBe('/settings/account');
    const form = p.locator('form[aria-label="Change password"]');
    const submit = form.locator('button[type=submit]');

    // Mismatched repetition: explained at once, nothing sent.
    await form.locator('input[name=current_password]').fill(oldPassword);
    await form.locator('input[name=new_password]').fill(newPassword);
    await form.locator('input[name=repeat_password]').fill(`${newPassword}!`);
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('do not match');
    expect(await submit.isDisabled()).toBe(true);

    // A wrong current password: identity's 422, shown as it comes; the password stays.
    await form.locator('input[name=current_password]').fill('not my password at all');
    await form.locator('input[name=repeat_password]').fill(newPassword);
    await submit.click();
    await expect.poll(() => form.getByRole('alert').textContent()).toContain('current password is incorrect');
    await screenshot('12-password-refused', p);

    await form.locator('input[name=current_password]').fill(oldPassword);
    await submit.click();
    await form.getByRole('status').waitFor();
    expect(await form.getByRole('status').textContent()).toContain('Password changed');
    expect(await form.locator('input[name=new_password]').inputValue()).toBe('');
    await screenshot('13-password-changed', p);

    // This browser stays signed in; the other one is signed out; only the new password signs in.
    await p.locator('nav a', { hasText: 'User App Tokens' }).click();
    await p.locator('h1', { hasText: 'User App Tokens' }).waitFor();
    await other.p.reload();
    await other.p.locator('form[aria-labelledby="sign-in-title"]').waitFor();
    const signInStatus = async (password: string) =>
      (
        await fetch(`${base}/settings/api/sign-in`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'carl@example.com', password }),
        })
      ).status;
    expect(await signInStatus(oldPassword)).toBe(401);
    expect(await signInStatus(newPassword)).toBeLessThan(300);
    await ctx.close();
    await other.ctx.close();
  });

  it('lays out on a narrow window', async () => {
    await page.setViewportSize({ width: 400, height: 800 });
    await page.locator('nav a', { hasText: 'System Parameters' }).click();
    await page.locator('tr[data-name="base_url"]').click();
    await page.getByTestId('edit-panel').waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(400);
    await screenshot('11-narrow');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('signs out: the session stops working', async () => {
    const session = (await context.cookies(base)).find((c) => c.name === 'rb_session')?.value ?? '';
    await page.locator('button', { hasText: 'Sign out' }).click();
    await page.locator('form[aria-labelledby="sign-in-title"]').waitFor();
    expect((await context.cookies(base)).find((c) => c.name === 'rb_session')).toBeUndefined();
    const res = await fetch(`${base}/core/me`, { headers: { cookie: `rb_session=${session}` } });
    expect(res.status).toBe(401);
    await screenshot('14-signed-out');
    expect(problems).toEqual([]);
  });
});
