/** @jest-environment jsdom */
// Behind Jupyter the setup page is one of Jupyter's pages (docs/http-api.md, "The setup page behind
// Jupyter"): its "Create project state" sends Jupyter's XSRF token, as JupyterLab does, so the
// service records the confirmation as the setup page's (`setup-page`), not as a plain call.
import * as fs from 'node:fs';
import * as path from 'node:path';

const STATIC = path.join(__dirname, '..', '..', 'sidecar', 'static');

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
}

async function pressCreate(cookie: string | undefined): Promise<Sent[]> {
  const html = fs.readFileSync(path.join(STATIC, 'setup.html'), 'utf8');
  document.documentElement.innerHTML = html
    .replace(/^<!doctype html>\s*<html[^>]*>/i, '')
    .replace(/<\/html>\s*$/i, '');
  for (const c of document.cookie.split(';')) {
    const name = c.split('=')[0].trim();
    if (name) {
      document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT`;
    }
  }
  if (cookie !== undefined) {
    document.cookie = cookie;
  }
  const projection = {
    platform: 'generic',
    interface: 'web',
    projectPath: '/p',
    statePath: '/p/.project-startup',
    phase: 'awaiting-confirmation',
    nextAction: { id: 'confirm-initialization', title: 'Confirm', detail: '' },
    confirmation: {
      allowedInterfaces: ['web'],
      creates: ['/p/.project-startup']
    },
    readinessChecks: [],
    manifest: {
      platform: { id: 'generic', label: 'Workstation or container' },
      policy: { lowRiskAutomation: 'permitted' },
      capabilities: []
    }
  };
  const sent: Sent[] = [];
  (globalThis as { fetch?: unknown }).fetch = (
    url: string,
    init: { method: string; headers: Record<string, string> }
  ) => {
    sent.push({ method: init.method, url, headers: init.headers });
    const body =
      init.method === 'POST'
        ? { created: true, record: { statePath: '/p/.project-startup' } }
        : projection;
    return Promise.resolve({
      ok: true,
      status: 200,
      json: () => Promise.resolve(body)
    });
  };
  (0, eval)(fs.readFileSync(path.join(STATIC, 'setup.js'), 'utf8'));
  const confirm = document.getElementById('confirm') as HTMLButtonElement;
  const area = document.getElementById('confirm-area') as HTMLElement;
  for (let i = 0; i < 40 && area.hidden; i++) {
    await new Promise(resolve => setTimeout(resolve, 5));
  }
  expect(area.hidden).toBe(false);
  confirm.click();
  for (let i = 0; i < 40 && !sent.some(s => s.method === 'POST'); i++) {
    await new Promise(resolve => setTimeout(resolve, 5));
  }
  return sent;
}

describe('the setup page behind Jupyter', () => {
  it("sends Jupyter's _xsrf cookie as X-XSRFToken with its confirmation, as JupyterLab does", async () => {
    const sent = await pressCreate('_xsrf=2|abc|def|123');
    const post = sent.find(s => s.method === 'POST') as Sent;
    expect(post.url).toBe('initialize');
    expect(post.headers['X-XSRFToken']).toBe('2|abc|def|123');
    // Reading sends no token.
    for (const get of sent.filter(s => s.method === 'GET')) {
      expect(get.headers['X-XSRFToken']).toBeUndefined();
    }
  });

  it('without an _xsrf cookie (direct loopback) sends none', async () => {
    const sent = await pressCreate(undefined);
    const post = sent.find(s => s.method === 'POST') as Sent;
    expect(post.headers['X-XSRFToken']).toBeUndefined();
  });
});
