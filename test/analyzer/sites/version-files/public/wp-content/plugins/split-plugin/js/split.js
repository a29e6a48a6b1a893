(function(){document.documentElement.classList.add("split-ready");})();
