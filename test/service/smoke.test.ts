import {
  postJson,
  request,
  TestService,
  trackedServices
} from '../helpers/harness';

describe('smoke', () => {
  const start = trackedServices('all');
  let svc: TestService;
  beforeAll(async () => {
    svc = await start();
  });

  it('serves startup and initializes', async () => {
    const r = await request(`${svc.api}startup?interface=web`, {
      token: svc.token
    });
    expect(r.status).toBe(200);
    expect(r.json.phase).toBe('awaiting-confirmation');
    expect(r.json.browserUrl).toBe(svc.api);
    const init = await postJson(
      `${svc.api}initialize`,
      svc.token,
      r.json.nextAction.request.body
    );
    expect(init.status).toBe(201);
    const again = await postJson(
      `${svc.api}initialize`,
      svc.token,
      r.json.nextAction.request.body
    );
    expect(again.status).toBe(200);
    expect(again.json.record).toEqual(init.json.record);
  });
});
