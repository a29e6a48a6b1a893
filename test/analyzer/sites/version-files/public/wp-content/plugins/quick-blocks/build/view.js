/******/ (() => { // webpackBootstrap
/******/ 	"use strict";
var __webpack_exports__ = {};
document.querySelectorAll(".wp-block-quick-blocks-tabs").forEach((tabs) => tabs.classList.add("is-interactive"));
/******/ })()
;
