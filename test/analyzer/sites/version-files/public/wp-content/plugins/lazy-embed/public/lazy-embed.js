/*! Lazy Embed v0.9.4 | (c) Acme Studio | GPL-2.0-or-later */
!function(){"use strict";var e=new IntersectionObserver(function(t){t.forEach(function(t){t.isIntersecting&&(t.target.src=t.target.dataset.src,e.unobserve(t.target))})});document.querySelectorAll("iframe[data-src]").forEach(function(t){e.observe(t)})}();
