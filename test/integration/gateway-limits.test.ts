import { stack, userArea } from '../support/stack';

// API Gateway's payload rules on the running local stack: refused at the gateway, before any function.

const tooLarge = { status: 413, body: { message: 'Request Entity Too Large' } };

async function post(url: string, body: Buffer, contentType: string) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as unknown };
}

test('a body over 10 MB is a 413 {"message":"Request Entity Too Large"}', async () => {
  const reply = await post(userArea(stack().orgs[0]!.uuid, '/users/bulk-create'), Buffer.alloc(10 * 1024 * 1024 + 1, 'a'), 'text/csv');

  expect(reply).toEqual(tooLarge);
});

test('a 5 MiB file in a multipart body is over Lambda’s 6 MB once base64-encoded in the event: the same 413', async () => {
  const boundary = 'gateway-limits';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="users.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.alloc(5 * 1024 * 1024, 'a'),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);

  const reply = await post(userArea(stack().orgs[0]!.uuid, '/users/bulk-create'), body, `multipart/form-data; boundary=${boundary}`);

  expect(reply).toEqual(tooLarge);
});
