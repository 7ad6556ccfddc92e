import './dashboard.css';
import { render } from 'preact';
import { pageData } from '../shared/page-data.js';
import { App, type DashboardData } from './app.js';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App data={pageData<DashboardData>() ?? { env: 'production', prefill: null }} />, root);
}
