import './wallet.css';
import { pageData } from '../shared/page-data.js';
import { followLandingState } from './live-state.js';

const live = pageData<{ kind: string; state: string }>();
if (live) followLandingState(live.state);
