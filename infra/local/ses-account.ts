/** The SES account the emulator reports (aws-ses-v2-local validates every field). */
export const localSesAccount = {
  DedicatedIpAutoWarmupEnabled: false,
  Details: {
    AdditionalContactEmailAddresses: [],
    ContactLanguage: 'EN',
    MailType: 'TRANSACTIONAL',
    ReviewDetails: { CaseId: 'local', Status: 'GRANTED' },
    UseCaseDescription: 'local stack',
    WebsiteURL: 'http://localhost',
  },
  EnforcementStatus: 'HEALTHY',
  ProductionAccessEnabled: true,
  SendingEnabled: true,
  SendQuota: { Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 0 },
  SuppressionAttributes: { SuppressedReasons: [] },
};
