import { languages } from '../../shared/kernel/messages/languages';
import { renderDevicePage, type DeviceView } from '../../shared/app/sign-in/device-page';

/** The device verification page's views, with every interpolated value hostile. */
const hostile = '"><img src=x onerror=alert(1)>';
const views: DeviceView[] = [
  { kind: 'enter', realm: hostile, action: `https://api.example.org/${hostile}`, userCode: hostile, error: 'wrong-code' },
  { kind: 'consent', realm: hostile, action: hostile, userCode: hostile, step: hostile, clientId: hostile, scope: 'openid offline_access', email: hostile },
  { kind: 'done', approved: true },
  { kind: 'problem', problem: 'expired', again: hostile },
];

describe('the device verification page', () => {
  test.each(languages.flatMap((language) => views.map((view) => [language, view.kind, view] as const)))('%s %s: every value escaped, no script, its language', (language, _kind, view) => {
    const html = renderDevicePage(view, language);

    expect(html).not.toContain('<img');
    expect(html).not.toContain(hostile);
    expect(html).not.toContain('<script');
    expect(html).toContain(`<html lang="${language}">`);
  });

  test('the consent step names the client, the person, the code and each scope granted, with approve and deny', () => {
    const html = renderDevicePage({ kind: 'consent', realm: 'acme', action: '/decision', userCode: 'WDJB-MJHT', step: 's', clientId: 'console-client', scope: 'openid offline_access', email: 'ada@example.com' }, 'en');

    expect(html).toContain('(client console-client)');
    expect(html).toContain('<dd>ada@example.com</dd><dt>Code on the device</dt><dd>WDJB-MJHT</dd>');
    expect(html).toContain('<li>know who you are (an ID token)</li>');
    expect(html).toContain('an offline token');
    expect(html).toContain('name="decision" value="approve"');
    expect(html).toContain('name="decision" value="deny"');
  });
});
