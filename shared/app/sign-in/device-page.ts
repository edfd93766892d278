import type * as View from './device-page.view';
import { signInViews } from './sign-in-views';

/** The device verification page (`device-page.view.ts`), loaded with the flow's other pages on first use (`sign-in-views.ts`). */
export type { DeviceCodeError, DeviceProblem, DeviceView } from './device-page.view';

export const renderDevicePage: typeof View.renderDevicePage = (...args) => signInViews().renderDevicePage(...args);
