import './wallet.css';
import { pageData } from '../shared/page-data.js';
import { followLiveState, type LivePage } from './live-state.js';

const live = pageData<LivePage>();
if (live) followLiveState(live);
