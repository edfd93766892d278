import { resourceGroups, type ResourceGroup } from '../../shared/edge/api/routes';
import { dataGroups, getAtt, streamActions, synthesizedStack } from './stack-template';
import { actionsOf, resourcesOf } from './synth';

/** The functions' roles: no wildcard actions, resources named wherever IAM allows it, each group's own grants. */

const { template, roleId, singleId, signingKeyId, sealingKeyId, environmentOf, statementsOf } = synthesizedStack();

describe('IAM', () => {
  const allStatements = () =>
    Object.values(template().findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Parameters<typeof actionsOf>[0][],
    );

  test('no statement allows the action "*" or "<service>:*"', () => {
    const actions = allStatements().flatMap(actionsOf);
    expect(actions.length).toBeGreaterThan(0);
    expect(actions.filter((action) => action === '*' || action.endsWith(':*'))).toEqual([]);
  });

  test('only X-Ray, ses:GetAccount and dynamodb:ListStreams, which have no resource-level permissions, are granted on Resource "*"', () => {
    const onAnyResource = allStatements().filter((s) => resourcesOf(s).includes('*'));
    expect(new Set(onAnyResource.flatMap(actionsOf).filter((action) => !action.startsWith('xray:')))).toEqual(new Set(['ses:GetAccount', 'dynamodb:ListStreams']));
  });

  test('function roles carry no managed policy', () => {
    for (const group of resourceGroups) {
      expect(template().findResources('AWS::IAM::Role')[roleId(group)]!.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  test('docs, the API reference, is granted nothing but its own logs and X-Ray', () => {
    const actions = statementsOf('docs').flatMap(actionsOf);
    expect([...new Set(actions)].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  /** The functions writing supervisors and agents check the bot's bundle lease in their transactions. */
  const conditionChecks: readonly ResourceGroup[] = ['supervisors', 'agents'];
  /** The change feed reads the caller and the feed, and writes nothing. */
  const readsOnly: readonly ResourceGroup[] = ['feed'];

  test.each(dataGroups)('%s gets item actions on the table and its indexes only', (group) => {
    const tableId = singleId('AWS::DynamoDB::Table');
    const statements = statementsOf(group).filter((s) => actionsOf(s).some((a) => a.startsWith('dynamodb:') && !streamActions.includes(a)));
    expect(statements).toHaveLength(1);
    const reads = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
    const writes = readsOnly.includes(group) ? [] : ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
    expect(actionsOf(statements[0]!).sort()).toEqual([...reads, ...writes, ...(conditionChecks.includes(group) ? ['dynamodb:ConditionCheckItem'] : [])].sort());
    expect(resourcesOf(statements[0]!)).toEqual([getAtt(tableId), { 'Fn::Join': ['', [getAtt(tableId), '/index/*']] }]);
  });

  test.each(dataGroups)('%s may read the public key of the signing key; only auth may sign', (group) => {
    const onSigningKey = (s: Parameters<typeof resourcesOf>[0]) => JSON.stringify(resourcesOf(s)).includes(signingKeyId());
    const statements = statementsOf(group).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')) && onSigningKey(s));
    expect(statements).toHaveLength(1);
    expect(resourcesOf(statements[0]!)).toEqual([getAtt(signingKeyId())]);
    expect(actionsOf(statements[0]!).sort()).toEqual(group === 'auth' ? ['kms:GetPublicKey', 'kms:Sign'] : ['kms:GetPublicKey']);
  });

  test('the sealing keys: each function holds exactly its use of each (seal: GenerateDataKey, open: Decrypt), on that key only, with the variable naming it', () => {
    const expected: Partial<Record<ResourceGroup, Record<string, string[]>>> = {
      users: { ProviderSecrets: ['kms:GenerateDataKey'], MailPasswords: ['kms:GenerateDataKey'] },
      auth: { ProviderSecrets: ['kms:Decrypt'] },
      scim: { MailPasswords: ['kms:GenerateDataKey'] },
      'bulk-worker': { MailPasswords: ['kms:GenerateDataKey'] },
      mail: { MailPasswords: ['kms:Decrypt'] },
    };
    const variables = { ProviderSecrets: 'PROVIDER_SECRETS_KEY', MailPasswords: 'MAIL_PASSWORDS_KEY' } as const;
    for (const group of resourceGroups) {
      const held: Record<string, string[]> = {};
      for (const name of ['ProviderSecrets', 'MailPasswords'] as const) {
        const statements = statementsOf(group).filter((s) => JSON.stringify(resourcesOf(s)).includes(sealingKeyId(name)));
        for (const statement of statements) expect(resourcesOf(statement)).toEqual([getAtt(sealingKeyId(name))]);
        const actions = statements.flatMap(actionsOf).sort();
        if (actions.length > 0) held[name] = actions;
        expect([group, name, environmentOf(group)[variables[name]]]).toEqual([group, name, actions.length > 0 ? getAtt(sealingKeyId(name)) : undefined]);
      }
      expect([group, held]).toEqual([group, expected[group] ?? {}]);
    }
    // Nothing but a function role is granted a sealing key: no statement of the template names one elsewhere.
    const elsewhere = allStatements().filter((s) => ['ProviderSecrets', 'MailPasswords'].some((name) => JSON.stringify(resourcesOf(s)).includes(sealingKeyId(name as 'ProviderSecrets'))));
    expect(elsewhere.flatMap(actionsOf).sort()).toEqual(['kms:Decrypt', 'kms:Decrypt', 'kms:GenerateDataKey', 'kms:GenerateDataKey', 'kms:GenerateDataKey', 'kms:GenerateDataKey']);
  });

  test('auth, users, scim, bulk and bulk-worker get exactly their Cognito actions, on the pool only; no other group gets any', () => {
    const expected: Partial<Record<ResourceGroup, string[]>> = {
      auth: ['cognito-idp:AdminGetUser', 'cognito-idp:AdminInitiateAuth', 'cognito-idp:AdminSetUserPassword'],
      users: [
        'cognito-idp:AdminCreateUser',
        'cognito-idp:AdminDisableUser',
        'cognito-idp:AdminEnableUser',
        'cognito-idp:AdminSetUserPassword',
        'cognito-idp:AdminUpdateUserAttributes',
      ],
      // The SCIM service provider runs the users area's use cases.
      scim: [
        'cognito-idp:AdminCreateUser',
        'cognito-idp:AdminDisableUser',
        'cognito-idp:AdminEnableUser',
        'cognito-idp:AdminSetUserPassword',
        'cognito-idp:AdminUpdateUserAttributes',
      ],
      // bulk-delete deletes users as the users function does (disable, and enable again on rollback).
      bulk: ['cognito-idp:AdminDisableUser', 'cognito-idp:AdminEnableUser'],
      'bulk-worker': ['cognito-idp:AdminCreateUser', 'cognito-idp:AdminSetUserPassword'],
    };
    for (const group of resourceGroups) {
      const statements = statementsOf(group).filter((s) => actionsOf(s).some((a) => a.startsWith('cognito-idp:')));
      expect(statements.flatMap(actionsOf).sort()).toEqual(expected[group] ?? []);
      for (const statement of statements) {
        expect(resourcesOf(statement)).toEqual([getAtt(singleId('AWS::Cognito::UserPool'))]);
      }
    }
  });
});
