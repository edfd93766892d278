import { containerEnv, TASK_DIR } from '../../scripts/sam-env';

// `npm run sam:env -- --local`: a function in SAM's container reaches the local stack's emulators at the host.

/** The local stack's emulators and their ports, as a function's environment names their endpoints. */
const emulatorPorts = { DYNAMODB: 8000, COGNITO: 9229, S3: 4569, SES: 8005, EVENTBRIDGE: 4010, SQS: 4020 };
const endpointsAt = (host: string) =>
  Object.fromEntries(Object.entries(emulatorPorts).map(([emulator, port]) => [`${emulator}_ENDPOINT`, `http://${host}:${port}`]));

test('every emulator endpoint of a function’s environment, the local SQS and EventBridge included, points at the host; the key file is the mounted copy', () => {
  const local = {
    TABLE_NAME: 'management-api',
    ...endpointsAt('127.0.0.1'),
    MAIL_QUEUE_URL: 'http://127.0.0.1:4020/000000000000/mail',
    SIGNING_KEY: 'file:/home/dev/.local/signing-key.json',
  };

  expect(containerEnv(local, 'host.docker.internal')).toEqual({
    ...local,
    ...endpointsAt('host.docker.internal'),
    SIGNING_KEY: `file:${TASK_DIR}/signing-key.json`,
  });
});
