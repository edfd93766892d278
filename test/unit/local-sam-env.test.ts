import { containerEnv, TASK_DIR } from '../../scripts/sam-env';

// `npm run sam:env -- --local`: a function in SAM's container reaches the local stack's emulators at the host.

test('every emulator endpoint of a function’s environment, the local SQS and EventBridge included, points at the host; the key file is the mounted copy', () => {
  const local = {
    TABLE_NAME: 'management-api',
    DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
    COGNITO_ENDPOINT: 'http://127.0.0.1:9229',
    S3_ENDPOINT: 'http://127.0.0.1:4569',
    SES_ENDPOINT: 'http://127.0.0.1:8005',
    EVENTBRIDGE_ENDPOINT: 'http://127.0.0.1:4010',
    SQS_ENDPOINT: 'http://127.0.0.1:4020',
    MAIL_QUEUE_URL: 'http://127.0.0.1:4020/000000000000/mail',
    SIGNING_KEY: 'file:/home/dev/.local/signing-key.json',
  };

  expect(containerEnv(local, 'host.docker.internal')).toEqual({
    ...local,
    DYNAMODB_ENDPOINT: 'http://host.docker.internal:8000',
    COGNITO_ENDPOINT: 'http://host.docker.internal:9229',
    S3_ENDPOINT: 'http://host.docker.internal:4569',
    SES_ENDPOINT: 'http://host.docker.internal:8005',
    EVENTBRIDGE_ENDPOINT: 'http://host.docker.internal:4010',
    SQS_ENDPOINT: 'http://host.docker.internal:4020',
    SIGNING_KEY: `file:${TASK_DIR}/signing-key.json`,
  });
});
